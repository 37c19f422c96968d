/**
 * Field locks when signing (PrepareOptions.lock, pdf/sign/prepare.ts): the signature dictionary gets a /Reference
 * with a FieldMDP transform, as pyHanko writes it (/Type /SigRef, /TransformMethod /FieldMDP, /TransformParams
 * << /Type /TransformParams /Action … /Fields […] /V /1.2 >>, /Data the catalog), from the `lock` option or else
 * from the signed field's /Lock; a certification that also locks carries both references. qpdf and pdfsig still
 * accept the file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { softwareSigner } from '../../../pdf/cms/index.js';
import {
  getPages,
  listSignatureFields,
  moharFieldName,
  PdfReader,
  prepareForm,
  signPades,
  verifyPdf,
  type FieldLock,
  type SignatureProvider,
} from '../../../pdf/index.js';
import { PdfArray, PdfDict, PdfRef, PdfString } from '../../../pdf/objects.js';
import { hasTool, makePdf, qpdfCheck } from '../../support/pdf-fixtures.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import { createTestPki, type TestPki } from '../../support/served-pki.js';

const at = new Date('2026-11-29T06:00:00Z');
const SIG = moharFieldName('r1', 'sig');
const PAN = moharFieldName('r1', 'pan');
const CITY = moharFieldName('r1', 'city');

/** Recipient r1: a signature field and two text fields (so its /Lock names both). */
function preparedForm(): Buffer {
  return prepareForm(makePdf(), [
    { type: 1, page: 1, rect: { x: 50, y: 300, width: 200, height: 60 }, recipientId: 'r1', id: 'sig' },
    { type: 8, page: 1, rect: { x: 50, y: 200, width: 200, height: 20 }, recipientId: 'r1', id: 'pan' },
    { type: 8, page: 1, rect: { x: 50, y: 240, width: 200, height: 20 }, recipientId: 'r1', id: 'city' },
  ]).bytes;
}

/** The /Reference array of the signature in `field`, each entry with its transform and parameters resolved. */
function referencesOf(bytes: Buffer, field: string): { method: string; params: PdfDict; data: unknown }[] {
  const reader = PdfReader.open(bytes);
  const info = listSignatureFields(reader, getPages(reader)).find((f) => f.name === field);
  assert.ok(info?.ref, `field ${field}`);
  const sig = reader.resolve((reader.getObject(new PdfRef(info.ref.num, info.ref.gen)) as PdfDict).get('V'));
  assert.ok(sig instanceof PdfDict);
  const refs = reader.resolve(sig.get('Reference'));
  if (!(refs instanceof PdfArray)) return [];
  return refs.items.map((item) => {
    const d = reader.resolve(item) as PdfDict;
    assert.equal(reader.getName(d, 'Type'), 'SigRef');
    return {
      method: reader.getName(d, 'TransformMethod') ?? '',
      params: reader.getDict(d, 'TransformParams')!,
      data: d.get('Data'),
    };
  });
}

function lockParams(reader: PdfReader, params: PdfDict): FieldLock & { v?: string; type?: string } {
  const fields = reader.getArray(params, 'Fields')?.items.map((s) => (s as PdfString).toText());
  const action = reader.getName(params, 'Action') as FieldLock['action'];
  return {
    ...(action === 'All' ? { action } : { action, fields: fields ?? [] }),
    v: reader.getName(params, 'V'),
    type: reader.getName(params, 'Type'),
  } as FieldLock & { v?: string; type?: string };
}

function assertAcceptedByTools(bytes: Buffer, signatures: number): void {
  assert.ok(qpdfCheck(bytes).ok, qpdfCheck(bytes).output);
  if (hasTool('pdfsig')) {
    const verdicts = pdfsigVerdicts(bytes);
    assert.deepEqual(verdicts.valid, Array(signatures).fill(true), verdicts.output);
  }
  const report = verifyPdf(bytes);
  assert.ok(report.valid, JSON.stringify(report.signatures.map((s) => s.problems)));
}

describe('signing with a field lock (FieldMDP)', () => {
  let pki: TestPki;
  let key: SignatureProvider;

  before(async () => {
    pki = await createTestPki();
    key = await softwareSigner({
      keyPem: pki.rsaSigner.keyPem,
      certificate: pki.rsaSigner.der,
      chain: [pki.intermediate.der, pki.root.der],
    });
  });
  after(async () => {
    await pki?.close();
  });

  test("prepareForm's /Lock on the signed field becomes the signature's FieldMDP /Reference", async () => {
    const form = preparedForm();
    const signed = await signPades(form, key, { level: 'B-B', field: { name: SIG }, signingTime: at });
    const refs = referencesOf(signed.bytes, SIG);
    assert.deepEqual(
      refs.map((r) => r.method),
      ['FieldMDP'],
    );
    const reader = PdfReader.open(signed.bytes);
    assert.deepEqual(lockParams(reader, refs[0]!.params), {
      action: 'Include',
      fields: [PAN, CITY],
      v: '1.2',
      type: 'TransformParams',
    });
    const catalog = reader.trailer.get('Root') as PdfRef;
    assert.ok(refs[0]!.data instanceof PdfRef && refs[0]!.data.num === catalog.num, '/Data is the catalog');
    assert.deepEqual(verifyPdf(signed.bytes).signatures[0]!.fieldLock, { action: 'Include', fields: [PAN, CITY] });
    assertAcceptedByTools(signed.bytes, 1);
  });

  test('the lock option wins over the field’s /Lock; on a new field it is the only lock', async () => {
    const form = preparedForm();
    const own = await signPades(form, key, {
      level: 'B-B',
      field: { name: SIG },
      lock: { action: 'Include', fields: [PAN] },
      signingTime: at,
    });
    assert.deepEqual(verifyPdf(own.bytes).signatures[0]!.fieldLock, { action: 'Include', fields: [PAN] });
    const sealed = await signPades(form, key, {
      level: 'B-B',
      field: { invisible: true, name: 'Seal' },
      lock: { action: 'All' },
      signingTime: at,
    });
    const refs = referencesOf(sealed.bytes, 'Seal');
    const reader = PdfReader.open(sealed.bytes);
    assert.deepEqual(lockParams(reader, refs[0]!.params), { action: 'All', v: '1.2', type: 'TransformParams' });
    assert.equal(refs[0]!.params.has('Fields'), false, '/All has no /Fields');
    assertAcceptedByTools(sealed.bytes, 1);
    // No lock anywhere: no /Reference at all.
    const plain = await signPades(makePdf(), key, { level: 'B-B', field: { invisible: true }, signingTime: at });
    assert.equal(verifyPdf(plain.bytes).signatures[0]!.fieldLock, null);
    assert.deepEqual(referencesOf(plain.bytes, 'Signature1'), []);
  });

  test('a certification that also locks carries both references, DocMDP first', async () => {
    const certified = await signPades(preparedForm(), key, {
      level: 'B-B',
      field: { invisible: true, name: 'Certification' },
      certify: { permission: 2 },
      lock: { action: 'Exclude', fields: [PAN] },
      signingTime: at,
    });
    const refs = referencesOf(certified.bytes, 'Certification');
    assert.deepEqual(
      refs.map((r) => r.method),
      ['DocMDP', 'FieldMDP'],
    );
    const reader = PdfReader.open(certified.bytes);
    assert.equal(reader.getNumber(refs[0]!.params, 'P'), 2);
    assert.deepEqual(lockParams(reader, refs[1]!.params), {
      action: 'Exclude',
      fields: [PAN],
      v: '1.2',
      type: 'TransformParams',
    });
    const report = verifyPdf(certified.bytes).signatures[0]!;
    assert.equal(report.docMdp, 2);
    assert.deepEqual(report.fieldLock, { action: 'Exclude', fields: [PAN] });
    assert.ok(reader.getDict(reader.catalog, 'Perms')?.get('DocMDP') instanceof PdfRef);
    assertAcceptedByTools(certified.bytes, 1);
  });

  test('an unusable lock is refused before the key is used', async () => {
    let used = false;
    const counting: SignatureProvider = {
      ...key,
      sign: async (data) => {
        used = true;
        return key.sign(data);
      },
    };
    for (const lock of [
      { action: 'Only' } as unknown as FieldLock,
      { action: 'Include', fields: [''] } as FieldLock,
      { action: 'Exclude' } as unknown as FieldLock,
    ]) {
      await assert.rejects(
        signPades(preparedForm(), counting, { level: 'B-B', field: { name: SIG }, lock, signingTime: at }),
        (e) => isMoharError(e, 'bad_request') && /field lock/.test(e.message),
      );
    }
    assert.equal(used, false);
  });
});
