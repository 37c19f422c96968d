/**
 * The annotation flags (/F) of the signature widget a revision signs (issue 26 point 8: pyHanko's signer sets them
 * when it signs an existing field, and pyHanko's policy allows /F with the value): part of signing that field. The
 * same change to another field's widget stays other.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { judgeAppendedRevision } from '../../../pdf/verify/index.js';
import { readFormTree } from '../../../pdf/write/form.js';
import { shadowKeys, shadowPrepared, type ShadowKeys, type ShadowPrepared } from '../../support/shadow/document.js';
import { signedRevision } from '../../support/shadow/revision.js';

describe('the signing revision and the /F of widgets', () => {
  let keys: ShadowKeys;
  let prepared: ShadowPrepared;
  before(async () => {
    keys = await shadowKeys();
    prepared = shadowPrepared();
  });
  after(() => keys?.pki.cleanup());

  test('/F of the widget being signed (print, hidden): signing of that field, accepted', async () => {
    const upload = await signedRevision(prepared.bytes, prepared.signingField, keys.signer, {
      attack: (update, t) => update.editDict(t.widget).set('F', 4 | 2),
    });
    const judgement = judgeAppendedRevision(prepared.bytes, upload, { signingField: prepared.signingField });
    assert.equal(judgement.accepted, true, judgement.problem ?? '');
    assert.ok(judgement.objects.some((o) => o.class === 'signing' && /annotation flags \(\/F\)/.test(o.reason)));
  });

  test('/F of another field’s widget in the signing revision: other, refused', async () => {
    const upload = await signedRevision(prepared.bytes, prepared.signingField, keys.signer, {
      attack: (update) => {
        const foreign = readFormTree(update).fields.find((f) => f.name === prepared.foreignField)!;
        update.editDict(foreign.ref!).set('F', 2);
      },
    });
    const judgement = judgeAppendedRevision(prepared.bytes, upload, { signingField: prepared.signingField });
    assert.equal(judgement.accepted, false);
    assert.match(judgement.problem ?? '', /\/F (added|changed)/);
  });
});
