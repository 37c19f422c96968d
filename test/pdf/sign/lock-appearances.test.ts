/**
 * Locks pyHanko 0.25.1 can keep (pdf/sign/lock-appearances.ts): with `reissueLockedAppearances` the locking
 * revision re-issues the appearance streams of the fields it locks (identical bytes, new objects), and a
 * completion locks what no signer locked (`fieldsNotLocked`, /Include) instead of /All. The whole envelope, as
 * Mohar runs it (certification at send, values filled before a signature as for a DSC signer, a next signer,
 * completion, /DSS and a document timestamp), is then valid for Mohar's verifier and for pyHanko, and a change of
 * any locked value afterwards breaks exactly the signature that locked it, in both.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { softwareSigner } from '../../../pdf/cms/index.js';
import {
  appendDss,
  fieldsNotLocked,
  fillForm,
  moharFieldName,
  PdfReader,
  prepareForm,
  signPades,
  timestampPdf,
  verifyPdf,
  type FormFieldLayout,
  type SignatureProvider,
} from '../../../pdf/index.js';
import { PdfDict, PdfRef, PdfStream } from '../../../pdf/objects.js';
import { byteRangeData } from '../../../pdf/sign/prepare.js';
import { readFormTree } from '../../../pdf/write/form.js';
import { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { createTestPki, type TestPki } from '../../support/pki.js';
import { pyhankoJudge, pyhankoMissing, type PyhankoSignature } from '../../support/pyhanko.js';
import { makeTestSigner, type TestSigner } from '../../support/openssl-signer.js';

const m = moharFieldName;
const LAYOUT: readonly FormFieldLayout[] = [
  { type: 1, page: 1, rect: { x: 72, y: 72, width: 200, height: 50 }, recipientId: 'meera', id: 'sig' },
  { type: 8, page: 1, rect: { x: 72, y: 150, width: 200, height: 20 }, recipientId: 'meera', id: 'amount' },
  {
    type: 8,
    page: 1,
    rect: { x: 72, y: 180, width: 200, height: 20 },
    recipientId: 'meera',
    id: 'remark',
    required: false,
  },
  { type: 1, page: 1, rect: { x: 300, y: 72, width: 200, height: 50 }, recipientId: 'ravi', id: 'sig' },
  { type: 8, page: 1, rect: { x: 300, y: 150, width: 200, height: 20 }, recipientId: 'ravi', id: 'note' },
  // A field no recipient holds (the sender's own): only the completion locks it.
  { type: 8, page: 1, rect: { x: 300, y: 250, width: 200, height: 20 }, recipientId: 'sender', id: 'price' },
];
const AMOUNT = m('meera', 'amount');
const PRICE = m('sender', 'price');
const signingTime = new Date('2026-11-29T06:00:00Z');

let pki: TestPki;
let tsa: TestSigner;
let meera: SignatureProvider;
let ravi: SignatureProvider;
let seal: SignatureProvider;

async function provider(commonName: string): Promise<SignatureProvider> {
  const issued = pki.issueSoftwareSigner({ commonName, keyType: 'ec' });
  return softwareSigner({ keyPem: issued.keyPem, certificate: issued.certDer, chain: [...pki.chainDer] });
}

/** The appearance stream (/AP /N) of a field merged with its widget: its object number and raw bytes. */
function appearanceOf(bytes: Buffer, field: string): { num: number; raw: string } {
  const update = new IncrementalUpdate(PdfReader.open(bytes));
  const node = readFormTree(update).fields.find((f) => f.name === field)!;
  const ap = update.resolve(node.dict.get('AP')) as PdfDict;
  const ref = ap.get('N') as PdfRef;
  const stream = update.resolve(ref) as PdfStream;
  return { num: ref.num, raw: Buffer.from(stream.raw()).toString('latin1') };
}

/** The envelope: certified at send, Meera's amount filled in a revision of its own (as for a DSC signer), … */
async function envelope(reissue: boolean): Promise<{ completed: Buffer; locked: string[] }> {
  const prepared = prepareForm(makePdf(), LAYOUT).bytes;
  const certified = await signPades(prepared, seal, {
    level: 'B-B',
    field: { invisible: true, name: 'MoharCertification' },
    certify: { permission: 2 },
    signingTime,
  });
  const filled = fillForm(certified.bytes, { [AMOUNT]: 'INR 10,00,000' });
  const a = await signPades(filled, meera, {
    level: 'B-B',
    field: { name: m('meera', 'sig') },
    reissueLockedAppearances: reissue,
    signingTime,
  });
  const b = await signPades(a.bytes, ravi, {
    level: 'B-B',
    field: { name: m('ravi', 'sig') },
    formValues: { [m('ravi', 'note')]: 'Delivered' },
    reissueLockedAppearances: reissue,
    signingTime,
  });
  const locked = fieldsNotLocked(PdfReader.open(b.bytes));
  const sealed = await signPades(b.bytes, seal, {
    level: 'B-B',
    field: { invisible: true, name: 'MoharCompletion' },
    lock: reissue ? { action: 'Include', fields: locked } : { action: 'All' },
    reissueLockedAppearances: reissue,
    signingTime,
  });
  const dss = appendDss(sealed.bytes, { certs: [...pki.chainDer], vri: [] });
  const stamped = await timestampPdf(dss.bytes, async (_digest, p) => tsa.timestampToken(byteRangeData(p)));
  return { completed: stamped.bytes, locked };
}

before(async () => {
  pki = createTestPki({ name: 'Lock Appearance Test' });
  tsa = makeTestSigner('Lock Appearance TSA');
  meera = await provider('Meera Iyer');
  ravi = await provider('Ravi Kumar');
  seal = await provider('Mohar Installation Seal');
});

after(() => {
  pki?.cleanup();
  tsa?.cleanup();
});

describe('re-issued appearances of locked fields', () => {
  test('the locking revision copies the appearance streams of the fields it locks, byte for byte, as new objects', async () => {
    const prepared = prepareForm(makePdf(), LAYOUT).bytes;
    const filled = fillForm(prepared, { [AMOUNT]: 'INR 10,00,000' });
    const before = appearanceOf(filled, AMOUNT);
    const signed = await signPades(filled, meera, {
      level: 'B-B',
      field: { name: m('meera', 'sig') },
      reissueLockedAppearances: true,
      signingTime,
    });
    assert.deepEqual(signed.reissuedFields, [AMOUNT, m('meera', 'remark')]);
    const now = appearanceOf(signed.bytes, AMOUNT);
    assert.notEqual(now.num, before.num);
    assert.equal(now.raw, before.raw);
    const report = verifyPdf(signed.bytes);
    assert.ok(report.valid, JSON.stringify(report.signatures.map((s) => s.problems)));
    // Without the option nothing is re-issued.
    const plain = await signPades(filled, meera, { level: 'B-B', field: { name: m('meera', 'sig') }, signingTime });
    assert.deepEqual(plain.reissuedFields, []);
    assert.equal(appearanceOf(plain.bytes, AMOUNT).num, before.num);
  });

  test('a field an earlier signature locks is left alone; fieldsNotLocked names only what no signature locks', async () => {
    const { completed, locked } = await envelope(true);
    assert.deepEqual(locked, [PRICE]);
    const report = verifyPdf(completed);
    assert.ok(report.valid, JSON.stringify(report.signatures.map((s) => s.problems)));
    assert.deepEqual(fieldsNotLocked(PdfReader.open(completed)), []);
  });
});

/** Meera's check box in her lock, checked and signed, then Ravi signs. */
async function withCheckbox(): Promise<Buffer> {
  const agree = m('meera', 'agree');
  const prepared = prepareForm(makePdf(), [
    { type: 1, page: 1, rect: { x: 72, y: 72, width: 200, height: 50 }, recipientId: 'meera', id: 'sig' },
    { type: 9, page: 1, rect: { x: 72, y: 150, width: 15, height: 15 }, recipientId: 'meera', id: 'agree' },
    { type: 1, page: 1, rect: { x: 300, y: 72, width: 200, height: 50 }, recipientId: 'ravi', id: 'sig' },
  ]).bytes;
  const a = await signPades(prepared, meera, {
    level: 'B-B',
    field: { name: m('meera', 'sig') },
    formValues: { [agree]: true },
    reissueLockedAppearances: true,
    signingTime,
  });
  return (await signPades(a.bytes, ravi, { level: 'B-B', field: { name: m('ravi', 'sig') }, signingTime })).bytes;
}

describe('check boxes', () => {
  test("prepareForm writes a check box's /AP /N as an object of its own; a locked one is re-issued and kept", async () => {
    const prepared = prepareForm(makePdf(), [
      { type: 9, page: 1, rect: { x: 72, y: 150, width: 15, height: 15 }, recipientId: 'meera', id: 'agree' },
    ]).bytes;
    const update = new IncrementalUpdate(PdfReader.open(prepared));
    const box = readFormTree(update).fields.find((f) => f.name === m('meera', 'agree'))!;
    assert.ok((update.resolve(box.dict.get('AP')) as PdfDict).get('N') instanceof PdfRef);
    const signed = await withCheckbox();
    assert.ok(verifyPdf(signed).valid);
    assert.equal(verifyPdf(fillForm(signed, { [m('meera', 'agree')]: false })).valid, false);
  });
});

describe('pyHanko on a whole envelope with locks', () => {
  const missing = pyhankoMissing();
  const judge = (dir: string, name: string, bytes: Buffer): PyhankoSignature[] => {
    writeFileSync(join(dir, name), bytes);
    return pyhankoJudge(join(dir, name)).signatures;
  };
  const brokenBy = (verdicts: PyhankoSignature[]): string[] =>
    verdicts.filter((s) => s.intact !== true || s.docmdp_ok === false).map((s) => s.field);

  test(
    'valid as completed; a changed value breaks the signature that locked it',
    { skip: missing ?? false },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mohar-lock-ap-'));
      try {
        const { completed } = await envelope(true);
        const honest = judge(dir, 'completed.pdf', completed);
        assert.deepEqual(brokenBy(honest), [], JSON.stringify(honest));
        const amount = judge(dir, 'amount.pdf', fillForm(completed, { [AMOUNT]: 'INR 1' }));
        assert.deepEqual(brokenBy(amount), [m('meera', 'sig')], JSON.stringify(amount));
        assert.equal(verifyPdf(fillForm(completed, { [AMOUNT]: 'INR 1' })).valid, false);
        const price = judge(dir, 'price.pdf', fillForm(completed, { [PRICE]: 'price INR 1' }));
        assert.deepEqual(brokenBy(price), ['MoharCompletion'], JSON.stringify(price));
        // A locked check box: valid after the next signature, unchecking it breaks the lock (a direct /AP /N made
        // pyHanko 0.25.1 fail with IndirectObjectExpected on every signature followed by a revision).
        const box = await withCheckbox();
        assert.deepEqual(brokenBy(judge(dir, 'box.pdf', box)), []);
        const unchecked = judge(dir, 'unchecked.pdf', fillForm(box, { [m('meera', 'agree')]: false }));
        assert.deepEqual(brokenBy(unchecked), [m('meera', 'sig')], JSON.stringify(unchecked));
        // For the record: the same envelope without re-issued appearances and with /All at completion.
        const { completed: fragile } = await envelope(false);
        console.log(`pyHanko 0.25.1 without re-issue: ${JSON.stringify(judge(dir, 'fragile.pdf', fragile))}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
