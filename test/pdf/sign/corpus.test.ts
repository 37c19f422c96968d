/**
 * Real-world files (PDFs under /usr/share, ghostscript output, qpdf rewrites of them: object
 * streams, linearized) through the whole chain: visible signature, prepareForm, fillForm, a second
 * signature into the prepared field, a /DSS revision. Every signature must stay valid in pdfsig and
 * the result must pass qpdf --check. A second renderer (ghostscript) confirms appearance placement.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { prepareForm, fillForm, appendDss, assertPrefix, inspectPdf } from '../../../pdf/index.js';
import { FIELD_TYPES } from '../../../pdf/prepare/prepare-form.js';
import { signPdf } from '../../../pdf/sign/sign-pdf.js';
import { ghostscriptPdf, qpdf, qpdfCheck, hasTool, makePdf, darkPixelBounds } from '../../support/pdf-fixtures.js';
import { makeTestSigner, pdfsig, signingToolsAvailable } from '../../support/openssl-signer.js';
import { renderPageGrayGs } from './helpers.js';

const TOOLS = signingToolsAvailable();
const skip = !TOOLS && 'qpdf, pdfsig, pdftoppm or openssl not installed';
const signer = TOOLS ? makeTestSigner() : undefined;
after(() => signer?.cleanup());

function corpus(): Record<string, () => Buffer> {
  const out: Record<string, () => Buffer> = {};
  const found = spawnSync('find', ['/usr/share', '-name', '*.pdf', '-type', 'f', '-size', '-20M'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .slice(0, 6);
  for (const file of found) {
    const label = file.split('/').pop()!;
    out[label] = () => readFileSync(file);
    out[`${label} (qpdf object streams)`] = () => qpdf(readFileSync(file), ['--object-streams=generate']);
    out[`${label} (qpdf linearized)`] = () => qpdf(readFileSync(file), ['--linearize']);
  }
  if (hasTool('gs')) {
    out['ghostscript pdfwrite'] = () =>
      ghostscriptPdf('/Helvetica findfont 24 scalefont setfont 72 700 moveto (Hello from gs) show showpage');
  }
  return out;
}

describe('real-world files through the whole chain', { skip }, () => {
  for (const [label, load] of Object.entries(TOOLS ? corpus() : {})) {
    test(label, async () => {
      const original = load();
      if (!qpdfCheck(original).ok) return; // only files qpdf accepts as they are
      const a = await signPdf(
        original,
        { field: { page: 1, rect: { x: 40, y: 40, width: 200, height: 50 } }, signingTime: new Date(), name: 'First' },
        signer!.callback(),
      );
      const prepared = prepareForm(a.bytes, [
        {
          type: FIELD_TYPES.FULL_NAME,
          page: 1,
          rect: { x: 300, y: 40, width: 200, height: 20 },
          recipientId: 'r2',
          id: 'name',
        },
        {
          type: FIELD_TYPES.SIGNATURE,
          page: 1,
          rect: { x: 300, y: 70, width: 200, height: 40 },
          recipientId: 'r2',
          id: 'sig',
        },
      ]).bytes;
      const filled = fillForm(prepared, { 'mohar.r2.name': 'Second Signer' });
      const b = await signPdf(
        filled,
        { field: { name: 'mohar.r2.sig' }, signingTime: new Date(), name: 'Second' },
        signer!.callback(),
      );
      const final = appendDss(b.bytes, {
        certs: [signer!.certDer],
        vri: [{ field: b.fieldName, certs: [signer!.certDer] }],
      }).bytes;
      assertPrefix(original, final);
      const report = pdfsig(final);
      assert.deepEqual(
        report.signatures.map((s) => s.validation),
        ['Signature is Valid.', 'Signature is Valid.'],
        report.output,
      );
      const check = qpdfCheck(final);
      assert.ok(check.ok, check.output);
      assert.equal(inspectPdf(final).revisions, inspectPdf(original).revisions + 5);
    });
  }
});

describe(
  'ghostscript agrees on appearance placement',
  { skip: (!TOOLS || !hasTool('gs')) && 'ghostscript not installed' },
  () => {
    for (const rotate of [0, 90, 180, 270]) {
      test(`/Rotate ${rotate}, offset boxes`, async () => {
        const pdf = makePdf({ pages: [{ mediaBox: [-50, -20, 562, 772], cropBox: [-40, -10, 552, 762], rotate }] });
        const rect = { x: 70, y: 90, width: 180, height: 45 };
        const signed = await signPdf(
          pdf,
          { field: { page: 1, rect }, signingTime: new Date(), appearance: { border: true } },
          signer!.callback(),
        );
        const b = darkPixelBounds(renderPageGrayGs(signed.bytes, 1))!;
        assert.ok(b, 'drawn');
        assert.ok(
          Math.abs(b.x - rect.x) <= 1 &&
            Math.abs(b.y - rect.y) <= 1 &&
            Math.abs(b.width - rect.width) <= 1 &&
            Math.abs(b.height - rect.height) <= 1,
          JSON.stringify(b),
        );
      });
    }
  },
);
