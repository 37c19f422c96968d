/**
 * Bytes after the last revision (issue 26 point 4): objects appended after the last %%EOF without a cross-reference
 * section, an appended revision whose startxref repeats the old offset, plain garbage: each is a change (`other`,
 * with a reason) for verifyPdf and its text report, and a refusal for the judge of uploads. Whitespace and NULs (PDF
 * whitespace) after %%EOF stay harmless; other control bytes are not whitespace.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { softwareSigner } from '../../../pdf/cms/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { formatReport, judgeAppendedRevision, verifyPdf } from '../../../pdf/verify/index.js';
import { cmsVariants } from '../../support/cms-variants.js';
import { makePdf } from '../../support/pdf-fixtures.js';

/** Page 1 (object 3 of makePdf) redefined to show a new price, as an object after the signed bytes. */
const PAGE_REDEFINED =
  '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 90 0 R >>\nendobj\n' +
  '90 0 obj\n<< /Length 44 >>\nstream\nBT /F1 24 Tf 72 700 Td (PRICE: INR 1) Tj ET\nendstream\nendobj\n';

describe('bytes after the last revision', () => {
  const variants = cmsVariants();
  const prior = makePdf({ pages: [{ text: 'PRICE: INR 10,00,000' }] });
  let signed: Buffer;

  before(async () => {
    const rsa = variants.signer('rsa');
    const signer = await softwareSigner({
      keyPem: readFileSync(rsa.keyPath),
      certificate: rsa.certPem,
    });
    signed = (await signPades(prior, signer, { level: 'B-B', field: { invisible: true }, signingTime: new Date() }))
      .bytes;
  });
  after(() => variants.cleanup());

  const startxrefOf = (bytes: Buffer): number =>
    Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(bytes.toString('latin1'))![1]);
  const changes: [string, (bytes: Buffer) => Buffer, RegExp][] = [
    [
      'a page redefinition after the last %%EOF, without a cross-reference section',
      (bytes) => Buffer.concat([bytes, Buffer.from(PAGE_REDEFINED, 'latin1')]),
      /belong to no revision: no cross-reference section/,
    ],
    [
      'an appended revision whose startxref repeats the old offset',
      (bytes) =>
        Buffer.concat([
          bytes,
          Buffer.from(
            `${PAGE_REDEFINED}trailer\n<< /Size 91 /Root 1 0 R >>\nstartxref\n${startxrefOf(bytes)}\n%%EOF\n`,
          ),
        ]),
      /startxref \d+ points back into earlier bytes/,
    ],
    ['plain garbage after %%EOF', (bytes) => Buffer.concat([bytes, Buffer.from('garbage\n')]), /belong to no revision/],
    [
      'control bytes that are not PDF whitespace',
      (bytes) => Buffer.concat([bytes, Buffer.from([1, 2, 0x1f])]),
      /belong to no revision/,
    ],
  ];

  for (const [label, append, reason] of changes) {
    test(`${label}: verify reports other (with the reason), the text report says so, the judge refuses`, () => {
      const bytes = append(signed);
      const report = verifyPdf(bytes);
      const s = report.signatures[0]!;
      assert.equal(s.coversWholeDocument, false);
      assert.equal(s.changesAfter, 'other');
      assert.ok(
        s.changedObjects.some((o) => o.class === 'other' && reason.test(o.reason)),
        JSON.stringify(s.changedObjects),
      );
      assert.equal(s.valid, false);
      assert.equal(report.valid, false);
      const text = formatReport(report);
      assert.doesNotMatch(text, /Changed after it: nothing/);
      assert.match(text, /Changed after it: OTHER CHANGES/);

      const judgement = judgeAppendedRevision(prior, bytes, { signingField: s.field, allowLtv: true });
      assert.equal(judgement.accepted, false);
      assert.match(judgement.problem ?? '', /bytes follow the end of the appended revision|it appends 2/);
    });
  }

  test('whitespace and NULs after %%EOF are harmless', () => {
    const bytes = Buffer.concat([signed, Buffer.from('\r\n \t\f\0\0\0\n', 'latin1')]);
    const s = verifyPdf(bytes).signatures[0]!;
    assert.equal(s.coversWholeDocument, true);
    assert.equal(s.changesAfter, 'none');
    assert.equal(s.valid, true, s.problems.join('; '));
    const field = s.field;
    assert.equal(judgeAppendedRevision(prior, bytes, { signingField: field, allowLtv: true }).accepted, true);
  });
});
