/**
 * The `metadata` class (issue 26 point 7): the trailer's /Info, the catalog's XMP /Metadata and catalog /Version,
 * updated beside a signature as pyHanko's `sign addsig` and Acrobat do, are recognised and allowed (uploads:
 * allowMetadata; every DocMDP level, as pyHanko's policy allows them at LTA_UPDATES). Exactly these: malformed
 * XMP, a /Metadata that is not XML, an "/Info" the signed revision also uses as something else, and other catalog
 * keys stay `other`, and only they are named.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PdfReader } from '../../../pdf/document.js';
import { PdfName, PdfRef, PdfString } from '../../../pdf/objects.js';
import { prepareForm } from '../../../pdf/prepare/prepare-form.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { formatReport, judgeAppendedRevision, verifyPdf, type RevisionPolicy } from '../../../pdf/verify/index.js';
import { isWellFormedXml } from '../../../pdf/verify/metadata-changes.js';
import { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { dict, name } from '../../../pdf/write/serialize.js';
import { hasTool, qpdfCheck, withObjectStreams } from '../../support/pdf-fixtures.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import {
  contractWithMetadata,
  INFO_NUM,
  infoDict,
  newInfo,
  pyHankoMetadata,
  rewriteInfo,
  rewriteXmp,
  addVersion,
  XMP_NUM,
  xmpPacket,
  xmpStream,
} from '../../support/shadow/metadata-fixtures.js';
import { SHADOW_LAYOUT, shadowKeys, type ShadowKeys } from '../../support/shadow/document.js';
import { signedRevision, type RevisionHooks } from '../../support/shadow/revision.js';
import { moharFieldName } from '../../../pdf/index.js';

const FIELD = moharFieldName('signer1', 'sig');
const UPLOAD: RevisionPolicy = { signingField: FIELD, allowLtv: true, allowMetadata: true };

async function certify(bytes: Buffer, keys: ShadowKeys, permission: 1 | 2): Promise<Buffer> {
  const signed = await signPades(bytes, keys.seal, {
    level: 'B-B',
    field: { invisible: true, name: 'MoharCertification' },
    certify: { permission },
    signingTime: new Date('2026-11-25T05:00:00Z'),
  });
  return signed.bytes;
}

describe('metadata updates beside a signature (the metadata class)', () => {
  let keys: ShadowKeys;
  let prepared: Buffer;
  const sign = (attack: RevisionHooks['attack']) => signedRevision(prepared, FIELD, keys.signer, { attack });
  const offending = (bytes: Buffer) =>
    judgeAppendedRevision(prepared, bytes, UPLOAD).offending.map((o) => `${o.num}: ${o.reason}`);

  before(async () => {
    keys = await shadowKeys();
    prepared = await certify(prepareForm(contractWithMetadata(), SHADOW_LAYOUT).bytes, keys, 2);
  });
  after(() => keys?.pki.cleanup());

  test("pyHanko's sign: the field signed, /Info and XMP rewritten in place, /Version added: accepted and valid", async () => {
    const bytes = await sign(pyHankoMetadata);
    const judgement = judgeAppendedRevision(prepared, bytes, UPLOAD);
    assert.equal(judgement.accepted, true, `${judgement.problem}`);
    const catalog = (PdfReader.open(prepared).trailer.get('Root') as PdfRef).num;
    assert.deepEqual(
      judgement.objects
        .filter((o) => o.class === 'metadata')
        .map((o) => [o.num, o.reason])
        .sort(),
      [
        [catalog, 'catalog /Version added (/1.7)'],
        [XMP_NUM, 'XMP metadata (catalog /Metadata) updated'],
        [INFO_NUM, 'trailer /Info (document information) updated'],
      ].sort(),
    );

    const report = verifyPdf(bytes);
    assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => s.problems)));
    assert.deepEqual(
      report.signatures.map((s) => s.changesAfter),
      ['signing', 'none'],
      'after the certification (P=2): the signature and metadata',
    );
    assert.match(formatReport(report), /metadata: object 11: XMP metadata \(catalog \/Metadata\) updated/);
    assert.ok(qpdfCheck(bytes).ok, qpdfCheck(bytes).output);
    if (hasTool('pdfsig')) assert.deepEqual(pdfsigVerdicts(bytes).valid, [true, true], pdfsigVerdicts(bytes).output);
  });

  test(
    'the same on a file with cross-reference and object streams (qpdf; /Info inside an object stream): accepted',
    { skip: !hasTool('qpdf') },
    async () => {
      const form = await certify(prepareForm(withObjectStreams(contractWithMetadata()), SHADOW_LAYOUT).bytes, keys, 2);
      const bytes = await signedRevision(form, FIELD, keys.signer, { attack: pyHankoMetadata });
      assert.match(
        bytes.subarray(form.length).toString('latin1'),
        /\/Type\s*\/XRef/,
        'the revision ends in an xref stream',
      );
      const judgement = judgeAppendedRevision(form, bytes, UPLOAD);
      assert.equal(judgement.accepted, true, `${judgement.problem}`);
      assert.equal(judgement.objects.filter((o) => o.class === 'metadata').length, 3);
      assert.equal(verifyPdf(bytes).valid, true);
    },
  );

  test('a new /Info and a new (compressed) XMP stream the catalog points to: accepted', async () => {
    const bytes = await sign((u, t) => {
      newInfo(u, t);
      u.editDict(t.catalog).set('Metadata', u.add(xmpStream(undefined, true)));
    });
    const judgement = judgeAppendedRevision(prepared, bytes, UPLOAD);
    assert.equal(judgement.accepted, true, `${judgement.problem}`);
    assert.ok(
      judgement.objects.some((o) => o.num === 0 && /trailer \/Info changed \(new document information/.test(o.reason)),
      JSON.stringify(judgement.objects),
    );
    assert.equal(verifyPdf(bytes).valid, true);
  });

  test('without allowMetadata (the policy of the acts Mohar writes itself) the same revision is refused', async () => {
    const judgement = judgeAppendedRevision(prepared, await sign(pyHankoMetadata), {
      signingField: FIELD,
      allowLtv: true,
    });
    assert.equal(judgement.accepted, false);
    assert.ok(
      judgement.offending.length === 3 && judgement.offending.every((o) => o.class === 'metadata'),
      JSON.stringify(judgement.offending),
    );
  });

  // Each refusal below keeps pyHanko's honest updates in the same revision: only the bad part is named.
  const refusals: [string, RevisionHooks['attack'], RegExp, RegExp?][] = [
    [
      'XMP that is not well-formed XML (an unclosed element)',
      (u, t) => {
        pyHankoMetadata(u, t);
        u.set(new PdfRef(XMP_NUM, 0), xmpStream(xmpPacket('x', 'y').replace('</rdf:RDF>', '')));
      },
      /^11: XMP metadata .*: not well-formed XML$/,
    ],
    [
      'XMP with a bare "&" (which xmldom alone lets through)',
      (u, t) => {
        pyHankoMetadata(u, t);
        u.set(new PdfRef(XMP_NUM, 0), xmpStream(xmpPacket('Tom & Jerry', 'y')));
      },
      /^11: XMP metadata .*: not well-formed XML$/,
    ],
    [
      'XMP with a DTD',
      (u, t) => {
        pyHankoMetadata(u, t);
        u.set(new PdfRef(XMP_NUM, 0), xmpStream(`<!DOCTYPE x [<!ENTITY a "b">]>${xmpPacket('&a;', 'y')}`));
      },
      /^11: XMP metadata .*: not well-formed XML$/,
    ],
    [
      'a /Metadata stream that is not /Subtype /XML',
      (u, t) => {
        pyHankoMetadata(u, t);
        const text = xmpStream();
        text.dict.set('Subtype', name('Text'));
        u.set(new PdfRef(XMP_NUM, 0), text);
      },
      /^11: XMP metadata .*: not \/Type \/Metadata \/Subtype \/XML$/,
    ],
    [
      "catalog /Metadata pointed at page 1's existing content stream",
      (u, t) => {
        rewriteInfo(u, t);
        addVersion(u, t);
        u.editDict(t.catalog).set('Metadata', t.content);
      },
      /^\d+: catalog \/Metadata changed \(object \d+ is not new in this revision\)$/,
    ],
    [
      'a new /Metadata stream that is not XML at all',
      (u, t) => {
        rewriteInfo(u, t);
        addVersion(u, t);
        u.editDict(t.catalog).set('Metadata', u.add(xmpStream('BT /F1 18 Tf 72 680 Td (PRICE CHANGED) Tj ET')));
      },
      /^\d+: new XMP metadata stream \(catalog \/Metadata\) object \d+: not well-formed XML$/,
    ],
    [
      'catalog /Version that is not a PDF version',
      (u, t) => {
        pyHankoMetadata(u, t);
        u.editDict(t.catalog).set('Version', new PdfName('9.9'));
      },
      /^\d+: catalog \/Version added \(\/9\.9: not a PDF version\)$/,
    ],
    [
      'another catalog key (/Lang) beside the metadata',
      (u, t) => {
        pyHankoMetadata(u, t);
        u.editDict(t.catalog).set('Lang', new PdfString(Buffer.from('en-IN'), false));
      },
      /^\d+: catalog \/Lang added$/,
    ],
    [
      'trailer /Info pointed at an existing object (the page font)',
      (u, t) => {
        rewriteXmp(u, t);
        addVersion(u, t);
        t.reader.trailer.set('Info', t.f1);
      },
      /^0: trailer \/Info changed \(object 7 is not new\)$/,
    ],
    [
      'an /Info that refers to a new object',
      (u, t) => {
        pyHankoMetadata(u, t);
        const info = infoDict();
        info.set('Title', u.add(new PdfString(Buffer.from('Anything'), false)));
        u.set(new PdfRef(INFO_NUM, 0), info);
      },
      /^12: trailer \/Info object 12 refers to new object \d+$/,
      /^\d+: new object used by object 12 \(other\)$/,
    ],
  ];
  for (const [what, attack, reason, alsoNamed] of refusals) {
    test(`refused: ${what}; the other metadata updates are not named`, async () => {
      const named = offending(await sign(attack));
      assert.match(named[0] ?? 'accepted', reason);
      for (const line of named.slice(1)) assert.match(line, alsoNamed ?? /^$/, named.join('\n'));
    });
  }

  test('an "/Info" that the signed revision also uses as the page font is not metadata when rewritten', async () => {
    // The sender's producer names the font /F1 (object 7) as /Info: rewriting it would change the page.
    const sneaky = Buffer.from(
      contractWithMetadata()
        .toString('latin1')
        .replace(/\/Info 12 0 R/, '/Info 7 0 R '),
    );
    const form = await certify(prepareForm(sneaky, SHADOW_LAYOUT).bytes, keys, 2);
    const bytes = await signedRevision(form, FIELD, keys.signer, {
      attack: (u) =>
        u.set(new PdfRef(7, 0), dict({ Type: name('Font'), Subtype: name('Type1'), BaseFont: name('Courier') })),
    });
    const judgement = judgeAppendedRevision(form, bytes, UPLOAD);
    assert.deepEqual(
      judgement.offending.map((o) => `${o.num}: ${o.reason}`),
      ['7: trailer /Info object 7 rewritten, but the signed revision also uses it elsewhere'],
    );
    assert.equal(verifyPdf(bytes).signatures[0]!.changesAfter, 'other');
  });

  test('after a P=1 certification (no changes allowed) a metadata-only revision is allowed, as pyHanko allows it', async () => {
    const certified = await certify(contractWithMetadata(), keys, 1);
    const reader = PdfReader.open(certified);
    const update = new IncrementalUpdate(reader);
    update.set(new PdfRef(INFO_NUM, 0), infoDict());
    update.set(new PdfRef(XMP_NUM, 0), xmpStream());
    update.editDict(reader.trailer.get('Root') as PdfRef).set('Version', new PdfName('1.7'));
    const report = verifyPdf(update.write().bytes);
    assert.equal(report.signatures[0]!.changesAfter, 'metadata');
    assert.equal(report.valid, true, JSON.stringify(report.signatures[0]!.problems));
  });

  test('isWellFormedXml: what producers write passes, what is not XML does not', () => {
    assert.equal(isWellFormedXml(xmpPacket('Contract Writer', '2026-11-20T10:00:00Z')), true);
    assert.equal(isWellFormedXml('<a>&amp;&#38;&#x26;</a>'), true);
    for (const bad of ['', 'plain text', '<a>', '<a></b>', '<a/><b/>', '<a/>junk', '<a b=c/>', '<x:a/>', '<a>&</a>']) {
      assert.equal(isWellFormedXml(bad), false, bad);
    }
  });
});
