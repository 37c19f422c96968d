/**
 * The judge of uploads and the /Filter and /SubFilter of the signature dictionary a revision adds (issue 26 point 3):
 * /Adobe.PPKLite with /ETSI.CAdES.detached or /adbe.pkcs7.detached, nothing else, whatever the CMS inside; document
 * timestamps keep /ETSI.RFC3161. The refusal names what it found.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { PreparedSignature } from '../../../pdf/sign/prepare.js';
import { subFilterProblem } from '../../../pdf/verify/sig-shape.js';
import { judgeAppendedRevision } from '../../../pdf/verify/index.js';
import { cmsVariants, rewriteInRevision, signWith } from '../../support/cms-variants.js';
import { makePdf } from '../../support/pdf-fixtures.js';

const SUBFILTER = '/SubFilter /ETSI.CAdES.detached';
const FILTER = '/Filter /Adobe.PPKLite';

describe('judgeAppendedRevision: the signature dictionary’s /Filter and /SubFilter', () => {
  const variants = cmsVariants();
  after(() => variants.cleanup());
  const prior = makePdf();
  const upload = (rewrite: (p: PreparedSignature) => void) =>
    signWith(prior, (signed) => variants.sign(signed, variants.signer('rsa'), ['-md', 'sha256']), rewrite);
  const judge = (bytes: Buffer) => judgeAppendedRevision(prior, bytes, { signingField: 'Signature1', allowLtv: true });

  const refused: [string, (p: PreparedSignature) => void, RegExp][] = [
    [
      '/SubFilter /adbe.x509.rsa_sha1',
      (p) => rewriteInRevision(p, SUBFILTER, '/SubFilter /adbe.x509.rsa_sha1'),
      /\/SubFilter \/adbe\.x509\.rsa_sha1 is not a recognised signature format/,
    ],
    [
      'an unknown /SubFilter /Mohar.Forged',
      (p) => rewriteInRevision(p, SUBFILTER, '/SubFilter /Mohar.Forged'),
      /\/SubFilter \/Mohar\.Forged is not a recognised signature format/,
    ],
    [
      'no /Filter and no /SubFilter',
      (p) => {
        rewriteInRevision(p, SUBFILTER, '');
        rewriteInRevision(p, FILTER, '');
      },
      /no \/Filter \(\/Adobe\.PPKLite expected\); no \/SubFilter is not a recognised signature format/,
    ],
    [
      'another /Filter',
      (p) => rewriteInRevision(p, FILTER, '/Filter /Entrust.PPKEF'),
      /\/Filter \/Entrust\.PPKEF \(\/Adobe\.PPKLite expected\)/,
    ],
  ];
  for (const [label, rewrite, reason] of refused) {
    test(`${label}, a valid detached CMS inside: refused, naming it`, () => {
      const judgement = judge(upload(rewrite));
      assert.equal(judgement.accepted, false);
      assert.match(judgement.problem ?? '', reason);
      assert.ok(judgement.offending.some((o) => o.field === 'Signature1' && reason.test(o.reason)));
    });
  }

  for (const to of ['/SubFilter /adbe.pkcs7.detached', SUBFILTER]) {
    test(`${to}: accepted`, () => {
      const judgement = judge(upload((p) => rewriteInRevision(p, SUBFILTER, to)));
      assert.equal(judgement.accepted, true, judgement.problem ?? '');
    });
  }
});

describe('subFilterProblem', () => {
  test('document timestamps: /ETSI.RFC3161 only', () => {
    assert.equal(subFilterProblem('ETSI.RFC3161', true), null);
    assert.match(subFilterProblem('ETSI.CAdES.detached', true) ?? '', /not a recognised document timestamp format/);
    assert.match(subFilterProblem('ETSI.RFC3161', false) ?? '', /not a recognised signature format/);
    assert.match(subFilterProblem('adbe.pkcs7.sha1', false) ?? '', /\/adbe\.pkcs7\.sha1/);
  });
});
