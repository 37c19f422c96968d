/**
 * Certification signatures (DocMDP, ISO 32000-1 12.8.2.2) made by signPades: the structure is read back
 * by qpdf (an independent parser) and by our reader; pdfsig checks every signature; later form filling
 * and signing keep the certification valid, a later page-content change is flagged.
 *
 * pdfsig 22.12 (Debian 12) prints no certification or DocMDP permission at all, and judges each
 * signature over its own byte range only: it cannot see a DocMDP violation. The permission is therefore
 * checked in qpdf's JSON of the file, and the violation by our verifier (plus pdfsig's "not total
 * document signed" for the certification).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { requestDocumentTimestamp, softwareSigner } from '../../../pdf/cms/index.js';
import { appendDss, fillForm, getPages, inspectPdf, PdfReader, prepareForm, timestampPdf } from '../../../pdf/index.js';
import { PdfArray, PdfDict } from '../../../pdf/objects.js';
import { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { makeStream } from '../../../pdf/write/serialize.js';
import { signPades } from '../../../pdf/sign/pades.js';
import type { SignatureProvider } from '../../../pdf/ports.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { makePdf, qpdfCheck } from '../../support/pdf-fixtures.js';
import { loopbackTransport, startTsa, type TestTsa } from '../../support/tsa.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import { createTestPki, type TestPki } from '../../support/served-pki.js';
import { pdfsig } from '../../support/openssl-signer.js';

const at = new Date('2026-11-20T10:00:00Z');
const FIELD = 'Mohar certification';

/** A PDF with Mohar's form fields: a text field and an empty signature field, both for recipient r1. */
function preparedForm(): Buffer {
  return prepareForm(makePdf({ pages: [{ text: 'Pay 1000 rupees' }, {}] }), [
    { type: 8, page: 1, rect: { x: 50, y: 200, width: 200, height: 20 }, recipientId: 'r1', id: 'pan', required: true },
    { type: 1, page: 1, rect: { x: 50, y: 300, width: 200, height: 60 }, recipientId: 'r1', id: 'sig', required: true },
  ]).bytes;
}

/** qpdf's view of the catalog /Perms /DocMDP and of the signature dictionary it points at. */
function qpdfDocMdp(pdf: Uint8Array): {
  permsTarget: string | null;
  sigRefP: number | null;
  transform: string | null;
  catalogPerms: unknown;
} {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-qpdf-json-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), pdf);
    const run = spawnSync('qpdf', ['--json=2', '--json-key=qpdf', join(dir, 'f.pdf')], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const json = JSON.parse(run.stdout) as { qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>] };
    const objects = json.qpdf[1];
    const trailer = objects['trailer']!.value as { '/Root': string };
    const catalog = objects[`obj:${trailer['/Root']}`]!.value as Record<string, unknown>;
    const perms =
      typeof catalog['/Perms'] === 'string'
        ? objects[`obj:${catalog['/Perms'] as string}`]!.value
        : (catalog['/Perms'] as Record<string, unknown> | undefined);
    const target = (perms?.['/DocMDP'] as string | undefined) ?? null;
    const sig = target ? (objects[`obj:${target}`]!.value as Record<string, unknown>) : undefined;
    const reference = (sig?.['/Reference'] as Record<string, unknown>[] | undefined)?.[0];
    const params = reference?.['/TransformParams'] as Record<string, unknown> | undefined;
    return {
      permsTarget: target,
      sigRefP: (params?.['/P'] as number | undefined) ?? null,
      transform: (reference?.['/TransformMethod'] as string | undefined) ?? null,
      catalogPerms: perms,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A new content stream appended to page 1 (what the "PRICE CHANGED" attack of issue 11 does). */
function overprintPage(pdf: Buffer): Buffer {
  const reader = PdfReader.open(pdf);
  const update = new IncrementalUpdate(reader);
  const page = getPages(reader)[0]!;
  const overlay = update.add(
    makeStream(new PdfDict(), Buffer.from('BT /F1 24 Tf 72 700 Td (PRICE CHANGED: 1 RUPEE) Tj ET', 'latin1')),
  );
  const dict = update.editDict(page.ref!);
  const old = dict.get('Contents');
  dict.set(
    'Contents',
    new PdfArray(
      old instanceof PdfArray
        ? [...old.items, overlay]
        : old === null || old === undefined
          ? [overlay]
          : [old, overlay],
    ),
  );
  return update.write().bytes;
}

describe('certification signatures (DocMDP)', () => {
  let pki: TestPki;
  let sealKey: SignatureProvider;
  let signerKey: SignatureProvider;
  let tsa: TestTsa;

  before(async () => {
    pki = await createTestPki();
    tsa = await startTsa({
      certPem: pki.tsa.certPem,
      keyPem: pki.tsa.keyPem,
      chainPem: pki.intermediate.certPem + pki.root.certPem,
    });
    sealKey = await softwareSigner({
      keyPem: pki.ecSigner.keyPem,
      certificate: pki.ecSigner.der,
      chain: [pki.intermediate.der, pki.root.der],
    });
    signerKey = await softwareSigner({
      keyPem: pki.rsaSigner.keyPem,
      certificate: pki.rsaSigner.der,
      chain: [pki.intermediate.der, pki.root.der],
    });
  });
  after(async () => {
    await tsa?.close();
    await pki?.close();
  });

  const certify = (pdf: Uint8Array, permission: 1 | 2 | 3 = 2) =>
    signPades(pdf, sealKey, {
      level: 'B-B',
      field: { invisible: true, name: FIELD },
      certify: { permission },
      signingTime: at,
      reason: 'Certified',
    });

  test('P=2: /Perms /DocMDP points at the signature, whose /Reference holds P 2; pdfsig, qpdf and our verifier accept it', async () => {
    const form = preparedForm();
    const certified = (await certify(form)).bytes;
    assert.ok(certified.subarray(0, form.length).equals(form), 'one incremental revision over the prepared bytes');

    const structure = qpdfDocMdp(certified);
    assert.ok(
      structure.permsTarget,
      `qpdf sees /Perms /DocMDP in the catalog: ${JSON.stringify(structure.catalogPerms)}`,
    );
    assert.equal(structure.transform, '/DocMDP');
    assert.equal(structure.sigRefP, 2);
    assert.ok(qpdfCheck(certified).ok, qpdfCheck(certified).output);

    const poppler = pdfsig(certified);
    const signature = poppler.signatures.find((s) => s.field === FIELD);
    assert.ok(signature, poppler.output);
    assert.equal(signature.validation, 'Signature is Valid.', poppler.output);
    assert.equal(signature.totalDocument, true);

    assert.equal(inspectPdf(certified).docMdpPermission, 2);
    const report = verifyPdf(certified);
    assert.equal(report.signatures.length, 1);
    assert.equal(report.signatures[0]!.field, FIELD);
    assert.equal(report.signatures[0]!.docMdp, 2);
    assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => s.problems)));
    // The widget: invisible, print + locked, on page 1, listed in /AcroForm /Fields.
    const field = inspectPdf(certified).signatureFields.find((f) => f.name === FIELD)!;
    assert.equal(field.signed, true);
    assert.equal(field.widgets[0]!.pageNumber, 1);
    assert.deepEqual(field.widgets[0]!.userRect, [0, 0, 0, 0]);
  });

  test('form filling and an approval signature after it keep the certification valid; then /DSS and a document timestamp too', async () => {
    const certified = (await certify(preparedForm())).bytes;
    const filled = fillForm(certified, { 'mohar.r1.pan': 'ABCDE1234F' });
    const approved = (
      await signPades(filled, signerKey, {
        level: 'B-B',
        field: { name: 'mohar.r1.sig' },
        signingTime: at,
        name: 'Asha Rao',
      })
    ).bytes;
    const poppler = pdfsigVerdicts(approved);
    assert.deepEqual(poppler.valid, [true, true], poppler.output);
    assert.ok(qpdfCheck(approved).ok);
    const report = verifyPdf(approved);
    assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => s.problems)));
    assert.equal(report.signatures[0]!.docMdp, 2);
    assert.notEqual(report.signatures[0]!.changesAfter, 'other');

    // Completion's long-term validation (archive.ts): a /DSS revision, then a document timestamp.
    const withDss = appendDss(approved, {
      certs: [pki.intermediate.der, pki.root.der],
      ocsps: [],
      crls: [],
      vri: [],
    }).bytes;
    const stamped = await timestampPdf(
      withDss,
      async (digest) => (await requestDocumentTimestamp(loopbackTransport(), tsa.url, digest)).tokenDer,
    );
    const final = verifyPdf(stamped.bytes);
    assert.equal(final.signatures[0]!.valid, true, JSON.stringify(final.signatures[0]!.problems));
    assert.equal(final.signatures[1]!.valid, true, JSON.stringify(final.signatures[1]!.problems));
    assert.deepEqual(pdfsigVerdicts(stamped.bytes).valid.slice(0, 2), [true, true]);
    assert.ok(qpdfCheck(stamped.bytes).ok);
  });

  test('a later page-content change is flagged', async () => {
    const certified = (await certify(preparedForm())).bytes;
    const tampered = overprintPage(certified);
    const report = verifyPdf(tampered);
    assert.equal(report.valid, false);
    assert.equal(report.signatures[0]!.docMdp, 2);
    assert.equal(report.signatures[0]!.changesAfter, 'other');
    // pdfsig: the signed range still verifies, but it no longer covers the whole document.
    const poppler = pdfsig(tampered);
    assert.equal(poppler.signatures.find((s) => s.field === FIELD)!.totalDocument, false, poppler.output);
  });

  test('a PDF that is signed or certified already cannot be certified', async () => {
    const signed = (
      await signPades(makePdf(), signerKey, { level: 'B-B', field: { invisible: true }, signingTime: at })
    ).bytes;
    const twice = (await certify(preparedForm())).bytes;
    for (const [what, pdf] of [
      ['signed', signed],
      ['certified', twice],
    ] as const) {
      await assert.rejects(
        certify(pdf),
        (error: unknown) => isMoharError(error) && error.code === 'certification_not_allowed',
        what,
      );
    }
    await assert.rejects(
      certify(makePdf(), 4 as 2),
      (error: unknown) => isMoharError(error) && error.code === 'bad_request',
    );
  });

  test('P=1 refuses a later signature before the key is used', async () => {
    const locked = (await certify(preparedForm(), 1)).bytes;
    assert.equal(verifyPdf(locked).signatures[0]!.docMdp, 1);
    await assert.rejects(
      signPades(locked, signerKey, { level: 'B-B', field: { name: 'mohar.r1.sig' }, signingTime: at }),
      (error: unknown) => isMoharError(error) && error.code === 'document_locked',
    );
  });
});
