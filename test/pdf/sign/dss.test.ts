import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { PdfReader, timestampPdf, appendDss, assertPrefix, inspectPdf } from '../../../pdf/index.js';
import { PdfDict, PdfArray, PdfStream, PdfString, PdfName, PdfRef } from '../../../pdf/objects.js';
import { vriKey } from '../../../pdf/sign/dss.js';
import { byteRangeData } from '../../../pdf/sign/prepare.js';
import { signPdf } from '../../../pdf/sign/sign-pdf.js';
import { isMoharError } from '../../../common/errors.js';
import { makePdf, samples, qpdfCheck, runOnFile } from '../../support/pdf-fixtures.js';
import { makeTestSigner, pdfsig, signingToolsAvailable } from '../../support/openssl-signer.js';
import { verifyTimestampToken } from './helpers.js';

const TOOLS = signingToolsAvailable();
const skip = !TOOLS && 'qpdf, pdfsig, pdftoppm or openssl not installed';
const signer = TOOLS ? makeTestSigner() : undefined;
after(() => signer?.cleanup());

// Stand-ins for an OCSP response and a CRL: the DSS stores DER blobs without interpreting them.
const OCSP = Buffer.from('300a0a0100a0053003060100', 'hex');
const CRL = Buffer.from('30080201010201020201ff', 'hex');

function dssOf(bytes: Uint8Array): { reader: PdfReader; dss: PdfDict } {
  const reader = PdfReader.open(bytes);
  const dss = reader.getDict(reader.catalog, 'DSS');
  assert.ok(dss, 'catalog has /DSS');
  return { reader, dss };
}

function contentsOf(bytes: Uint8Array, field: string): Uint8Array {
  const reader = PdfReader.open(bytes);
  const info = inspectPdf(bytes).signatureFields.find((f) => f.name === field)!;
  const fieldDict = reader.getObject(new PdfRef(info.ref!.num, info.ref!.gen)) as PdfDict;
  return (reader.getDict(fieldDict, 'V')!.get('Contents') as PdfString).bytes;
}

describe('DSS revision (PAdES B-LT)', () => {
  test('adds certificates, OCSP responses, CRLs and a VRI entry; the signature stays valid', { skip }, async () => {
    const signed = await signPdf(
      makePdf({ pages: 2 }),
      { field: { page: 1, rect: { x: 40, y: 40, width: 200, height: 50 } }, signingTime: new Date() },
      signer!.callback(),
    );
    const { bytes, counts } = appendDss(signed.bytes, {
      certs: [signer!.certDer],
      vri: [{ field: signed.fieldName, certs: [signer!.certDer], ocsps: [OCSP], crls: [CRL] }],
    });
    assertPrefix(signed.bytes, bytes);
    assert.deepEqual(counts, { certs: 1, ocsps: 1, crls: 1, vri: 1 }, 'the same certificate is stored once');

    const { reader, dss } = dssOf(bytes);
    assert.equal(reader.xref.sections.length, PdfReader.open(signed.bytes).xref.sections.length + 1, 'one revision');
    const certs = reader.getArray(dss, 'Certs')!;
    assert.equal(certs.length, 1);
    assert.deepEqual(reader.decodeStream(reader.resolve(certs.get(0)) as PdfStream), signer!.certDer);
    assert.equal(reader.getArray(dss, 'OCSPs')!.length, 1);
    assert.equal(reader.getArray(dss, 'CRLs')!.length, 1);
    const key = vriKey(contentsOf(bytes, signed.fieldName));
    assert.match(key, /^[0-9A-F]{40}$/);
    assert.equal(key, createHash('sha1').update(contentsOf(bytes, signed.fieldName)).digest('hex').toUpperCase());
    const entry = reader.getDict(reader.getDict(dss, 'VRI'), key)!;
    assert.ok(entry, 'VRI keyed by the SHA-1 of the signature /Contents');
    assert.equal(reader.getArray(entry, 'Cert')!.length, 1);
    assert.equal(reader.getArray(entry, 'OCSP')!.length, 1);
    assert.equal(reader.getArray(entry, 'CRL')!.length, 1);
    // ESIC extension for a PDF 1.7 file
    const esic = reader.getDict(reader.getDict(reader.catalog, 'Extensions'), 'ESIC')!;
    assert.equal(reader.getName(esic, 'BaseVersion'), '1.7');
    assert.equal(reader.getNumber(esic, 'ExtensionLevel'), 5);

    const report = pdfsig(bytes);
    assert.equal(report.signatures[0]!.validation, 'Signature is Valid.', report.output);
    const check = qpdfCheck(bytes);
    assert.ok(check.ok, check.output);
    // qpdf agrees: the catalog's /DSS holds the three arrays
    const json = JSON.parse(runOnFile('qpdf', ['--json=2', '--json-key=qpdf'], bytes).stdout) as {
      qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>];
    };
    const objects = json.qpdf[1];
    const root = (PdfReader.open(bytes).trailer.get('Root') as PdfRef).num;
    const dssRef = objects[`obj:${root} 0 R`]!.value!['/DSS'] as string;
    const qdss = objects[`obj:${dssRef}`]!.value as Record<string, string[]>;
    assert.deepEqual([qdss['/Certs']!.length, qdss['/OCSPs']!.length, qdss['/CRLs']!.length], [1, 1, 1]);
  });

  test(
    'a second DSS revision keeps the old entries and merges VRI; then a document timestamp (B-LTA)',
    { skip },
    async () => {
      const a = await signPdf(makePdf(), { field: { invisible: true }, signingTime: new Date() }, signer!.callback());
      const b = await signPdf(
        appendDss(a.bytes, { vri: [{ field: a.fieldName, certs: [signer!.certDer], ocsps: [OCSP] }] }).bytes,
        { field: { invisible: true }, signingTime: new Date() },
        signer!.callback(),
      );
      const second = appendDss(b.bytes, {
        crls: [CRL],
        vri: [
          { field: a.fieldName, crls: [CRL] },
          { field: b.fieldName, certs: [signer!.certDer], ocsps: [OCSP] },
        ],
      });
      assert.deepEqual(second.counts, { certs: 1, ocsps: 1, crls: 1, vri: 2 });
      const { reader, dss } = dssOf(second.bytes);
      const vri = reader.getDict(dss, 'VRI')!;
      const first = reader.getDict(vri, vriKey(contentsOf(second.bytes, a.fieldName)))!;
      assert.equal(reader.getArray(first, 'Cert')!.length, 1, 'old VRI data kept');
      assert.equal(reader.getArray(first, 'OCSP')!.length, 1);
      assert.equal(reader.getArray(first, 'CRL')!.length, 1, 'new data merged');

      let token: Buffer | undefined;
      let data: Buffer | undefined;
      const lta = await timestampPdf(second.bytes, async (_digest, prepared) => {
        data = byteRangeData(prepared);
        token = signer!.timestampToken(data);
        return token;
      });
      assert.ok(verifyTimestampToken(signer!, token!, data!).ok);
      const report = pdfsig(lta.bytes);
      assert.deepEqual(
        report.signatures.slice(0, 2).map((s) => s.validation),
        ['Signature is Valid.', 'Signature is Valid.'],
        report.output,
      );
      assert.ok(qpdfCheck(lta.bytes).ok);
      // VRI for the document timestamp: keyed by its DER token (without the zero padding)
      const withTsVri = appendDss(lta.bytes, { vri: [{ field: lta.fieldName, certs: [signer!.certDer] }] });
      const { reader: r2, dss: d2 } = dssOf(withTsVri.bytes);
      assert.ok(r2.getDict(r2.getDict(d2, 'VRI'), vriKey(token!)), 'doc timestamp VRI key = SHA-1 of the token');
    },
  );

  test('DSS on a certified P=1 document is allowed (ISO 32000-2 exempts DSS updates)', { skip }, () => {
    const out = appendDss(samples.certified(1), { certs: [signer!.certDer] });
    assert.equal(dssOf(out.bytes).reader.getArray(dssOf(out.bytes).dss, 'Certs')!.length, 1);
  });

  test('errors: nothing to store, unknown signature field', () => {
    assert.throws(
      () => appendDss(makePdf(), {}),
      (e) => isMoharError(e, 'bad_request'),
    );
    assert.throws(
      () => appendDss(samples.signedField(), { vri: [{ field: 'Nope', certs: [Buffer.from('3000', 'hex')] }] }),
      (e) => isMoharError(e, 'signature_field_not_found') && /"Signer1"/.test(e.message),
    );
  });

  test('DSS data is stored compressed and referenced by the catalog of the newest revision only', () => {
    const out = appendDss(makePdf(), { certs: [Buffer.alloc(500, 0x30)] });
    const r = PdfReader.open(out.bytes);
    const s = r.resolve(r.getArray(r.getDict(r.catalog, 'DSS'), 'Certs')!.get(0)) as PdfStream;
    assert.equal((s.dict.get('Filter') as PdfName).name, 'FlateDecode');
    assert.ok(s.raw().length < 100);
    const before = PdfReader.open(makePdf());
    assert.equal(before.catalog.has('DSS'), false);
    assert.ok(r.getDict(r.catalog, 'DSS')!.get('Certs') instanceof PdfArray);
  });
});
