import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  PdfReader,
  prepareForm,
  fillForm,
  assertPrefix,
  moharFieldName,
  inspectPdf,
  type FormFieldLayout,
} from '../../../pdf/index.js';
import { PdfDict, PdfString, PdfRef } from '../../../pdf/objects.js';
import { radioLayout, FIELD_TYPES } from '../../../pdf/prepare/prepare-form.js';
import { signPdf } from '../../../pdf/sign/sign-pdf.js';
import { isMoharError, type MoharError } from '../../../common/errors.js';
import {
  makePdf,
  samples,
  buildPdf,
  withObjectStreams,
  qpdfCheck,
  runOnFile,
  renderPageGray,
  darkPixelBounds,
} from '../../support/pdf-fixtures.js';
import { makeTestSigner, pdfsig, signingToolsAvailable } from '../../support/openssl-signer.js';

const TOOLS = signingToolsAvailable();
const skip = !TOOLS && 'qpdf, pdfsig, pdftoppm or openssl not installed';
const signer = TOOLS ? makeTestSigner() : undefined;
after(() => signer?.cleanup());

interface QpdfField {
  fullname: string;
  fieldtype: string;
  fieldflags: number;
  /** The /TU tooltip. */
  alternativename: string;
  value: unknown;
  pageposfrom1: number;
}
function qpdfFields(pdf: Uint8Array): QpdfField[] {
  return (
    JSON.parse(runOnFile('qpdf', ['--json=2', '--json-key=acroform'], Buffer.from(pdf)).stdout) as {
      acroform: { fields: QpdfField[] };
    }
  ).acroform.fields;
}

const R = 'c1a4f0e2-0000-4000-8000-000000000001';
const at = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });
const LAYOUT: FormFieldLayout[] = [
  { type: FIELD_TYPES.SIGNATURE, page: 1, rect: at(50, 50, 200, 50), recipientId: R, id: 'sig' },
  { type: FIELD_TYPES.INITIAL, page: 1, rect: at(300, 50, 60, 30), recipientId: R, id: 'initials' },
  { type: FIELD_TYPES.DATE_SIGNED, page: 1, rect: at(400, 50, 120, 20), recipientId: R, id: 'signed-on' },
  { type: FIELD_TYPES.FULL_NAME, page: 1, rect: at(50, 120, 200, 20), recipientId: R, id: 'name' },
  { type: FIELD_TYPES.FIRST_NAME, page: 1, rect: at(300, 120, 100, 20), recipientId: R, id: 'first' },
  { type: FIELD_TYPES.LAST_NAME, page: 1, rect: at(420, 120, 100, 20), recipientId: R, id: 'last' },
  { type: FIELD_TYPES.EMAIL, page: 1, rect: at(50, 150, 200, 20), recipientId: R, id: 'email' },
  { type: FIELD_TYPES.TEXT, page: 1, rect: at(300, 150, 200, 20), recipientId: R, id: 'note', value: 'Preset note' },
  { type: FIELD_TYPES.CHECKBOX, page: 1, rect: at(50, 180, 15, 15), recipientId: R, id: 'agree' },
  { type: FIELD_TYPES.NUMBER, page: 1, rect: at(300, 180, 100, 20), recipientId: R, id: 'amount' },
  { type: FIELD_TYPES.DATE, page: 1, rect: at(420, 180, 100, 20), recipientId: R, id: 'due', value: '2025-04-01' },
  {
    type: FIELD_TYPES.DROPDOWN,
    page: 1,
    rect: at(50, 210, 150, 20),
    recipientId: R,
    id: 'plan',
    options: ['Basic', 'Pro', 'प्रो'],
  },
  {
    type: FIELD_TYPES.RADIO,
    page: 1,
    rect: at(50, 240, 150, 60),
    recipientId: R,
    id: 'size',
    options: ['Small', 'Medium', 'Large'],
    value: 'Medium',
  },
  { type: FIELD_TYPES.FULL_NAME, page: 2, rect: at(60, 80, 220, 30), recipientId: 'second signer', id: 'name' },
  {
    type: FIELD_TYPES.RADIO,
    page: 2,
    rect: at(60, 200, 240, 20),
    recipientId: 'second signer',
    id: 'choice',
    options: ['Yes', 'No'],
  },
];
const base = (): Buffer => makePdf({ pages: [{}, { mediaBox: [0, 0, 595, 842], rotate: 90 }] });
const n = (id: string, recipient = R) => moharFieldName(recipient, id);

describe('prepareForm', () => {
  test('one revision with every field type, as qpdf sees them', { skip }, () => {
    const pdf = base();
    const { bytes, fields } = prepareForm(pdf, LAYOUT);
    assertPrefix(pdf, bytes);
    assert.equal(PdfReader.open(bytes).xref.sections.length, 2);
    assert.ok(qpdfCheck(bytes).ok, qpdfCheck(bytes).output);
    assert.deepEqual(
      fields.map((f) => f.pdfType),
      ['Sig', 'Tx', 'Tx', 'Tx', 'Tx', 'Tx', 'Tx', 'Tx', 'Btn', 'Tx', 'Tx', 'Ch', 'Btn', 'Tx', 'Btn'],
    );
    const q = qpdfFields(bytes);
    const byName = new Map<string, QpdfField[]>();
    for (const f of q) byName.set(f.fullname, [...(byName.get(f.fullname) ?? []), f]);
    assert.equal(byName.get(n('sig'))![0]!.fieldtype, '/Sig');
    assert.equal(byName.get(n('initials'))![0]!.fieldtype, '/Tx', 'Initial is a text field');
    // An unlabelled field's tooltip is its type's API name (common/fields.ts).
    assert.deepEqual(
      [n('initials'), n('signed-on')].map((name) => byName.get(name)![0]!.alternativename),
      ['Initial', 'Date Signed'],
    );
    assert.equal(byName.get(n('note'))![0]!.value, 'u:Preset note');
    assert.equal(byName.get(n('due'))![0]!.value, 'u:2025-04-01');
    assert.equal(byName.get(n('agree'))![0]!.fieldtype, '/Btn');
    assert.equal(byName.get(n('agree'))![0]!.value, '/Off');
    assert.equal(byName.get(n('plan'))![0]!.fieldtype, '/Ch');
    assert.ok(byName.get(n('plan'))![0]!.fieldflags & (1 << 17), 'combo box');
    assert.equal(byName.get(n('size'))!.length, 3, 'one widget per radio option');
    assert.ok(byName.get(n('size'))![0]!.fieldflags & (1 << 15), 'radio');
    assert.equal(byName.get(n('size'))![0]!.value, '/1', 'Medium preselected');
    assert.equal(byName.get(n('name', 'second signer'))![0]!.pageposfrom1, 2);
    assert.equal(n('name', 'second signer'), 'mohar.second_signer.name', 'names sanitised');
    assert.ok(byName.get(n('name'))![0]!.fieldflags & 2, 'required by default');
    assert.equal(byName.get(n('agree'))![0]!.fieldflags & 2, 0, 'a checkbox is optional by default');
    // the signature field is empty and signable
    assert.deepEqual(
      inspectPdf(bytes).signatureFields.map((f) => [f.name, f.signed]),
      [[n('sig'), false]],
    );
    const r = PdfReader.open(bytes);
    const af = r.getDict(r.catalog, 'AcroForm')!;
    assert.equal(r.getNumber(af, 'SigFlags'), 1);
    assert.ok(r.getDict(r.getDict(af, 'DR'), 'Font')!.has('Helv'));
    assert.equal((af.get('DA') as PdfString).toText(), '/Helv 0 Tf 0 g');
  });

  test(
    'every widget has an appearance: preset values render inside their rectangles, on a /Rotate 90 page too',
    { skip },
    () => {
      const pdf = makePdf({ pages: [{}, { mediaBox: [0, 0, 595, 842], rotate: 90 }] });
      const { bytes } = prepareForm(pdf, [
        { type: FIELD_TYPES.TEXT, page: 1, rect: at(100, 100, 200, 24), recipientId: R, id: 'a', value: 'WWWWWWWW' },
        { type: FIELD_TYPES.TEXT, page: 2, rect: at(100, 100, 200, 24), recipientId: R, id: 'b', value: 'WWWWWWWW' },
      ]);
      for (const page of [1, 2]) {
        const b = darkPixelBounds(renderPageGray(bytes, page))!;
        assert.ok(b, `page ${page} shows the value`);
        assert.ok(
          b.x >= 100 && b.y >= 100 && b.x + b.width <= 300 && b.y + b.height <= 124,
          `page ${page}: ${JSON.stringify(b)}`,
        );
        assert.ok(b.width > 2 * b.height, `upright text on page ${page}: ${JSON.stringify(b)}`);
      }
      const r = PdfReader.open(bytes);
      const widget = findField(r, n('b'));
      assert.equal(r.getNumber(r.getDict(widget, 'MK'), 'R'), 90, '/MK /R tells regenerating viewers the rotation');
      assert.ok(r.getDict(r.getDict(widget, 'AP'), 'N') === undefined, 'a text field has one normal appearance stream');
    },
  );

  test('a second prepareForm extends the existing "mohar" node; a name in use is refused', { skip }, () => {
    const once = prepareForm(base(), [LAYOUT[3]!]).bytes;
    const twice = prepareForm(once, [
      { type: FIELD_TYPES.EMAIL, page: 1, rect: at(50, 300, 200, 20), recipientId: 'other', id: 'mail' },
    ]).bytes;
    const names = qpdfFields(twice)
      .map((f) => f.fullname)
      .sort();
    assert.deepEqual(names, [n('name'), n('mail', 'other')].sort());
    const r = PdfReader.open(twice);
    assert.equal(r.getArray(r.getDict(r.catalog, 'AcroForm'), 'Fields')!.length, 1, 'one "mohar" root');
    assert.throws(
      () => prepareForm(twice, [LAYOUT[3]!]),
      (e) => isMoharError(e, 'invalid_field_layout') && (e as MoharError).errors![0]!.code === 'field_name_taken',
    );
    assert.ok(qpdfCheck(twice).ok);
  });

  test('works on object streams (xref stream section)', { skip }, () => {
    const pdf = withObjectStreams(base());
    const { bytes } = prepareForm(pdf, LAYOUT);
    assert.equal(PdfReader.open(bytes).xrefKind, 'stream');
    assert.equal(qpdfFields(bytes).length, LAYOUT.length + 2 + 1, 'radio groups list each widget');
    assert.ok(qpdfCheck(bytes).ok);
  });

  test("each recipient's signature field locks that recipient's other fields of the layout (/Lock, FieldMDP /Include)", () => {
    const layout: FormFieldLayout[] = [
      ...LAYOUT,
      { type: FIELD_TYPES.SIGNATURE, page: 2, rect: at(60, 300, 200, 50), recipientId: 'second signer', id: 'sig' },
      { type: FIELD_TYPES.SIGNATURE, page: 2, rect: at(60, 400, 200, 50), recipientId: 'alone', id: 'sig' },
    ];
    const out = prepareForm(base(), layout).bytes;
    const reader = PdfReader.open(out);
    const fieldDict = (name: string): PdfDict => {
      const info = inspectPdf(out).signatureFields.find((f) => f.name === name);
      assert.ok(info?.ref, name);
      return reader.getObject(new PdfRef(info.ref.num, info.ref.gen)) as PdfDict;
    };
    const lockOf = (name: string): { type?: string; action?: string; fields?: string[]; p: boolean } | null => {
      const raw = fieldDict(name).get('Lock');
      if (raw === null) return null;
      assert.ok(raw instanceof PdfRef, 'the /Lock is an object of its own (ISO 32000-1 table 232)');
      const lock = reader.resolve(raw) as PdfDict;
      return {
        type: reader.getName(lock, 'Type'),
        action: reader.getName(lock, 'Action'),
        fields: reader.getArray(lock, 'Fields')?.items.map((i) => (i as PdfString).toText()),
        p: lock.has('P'),
      };
    };
    const ids = (recipient: string, sig: string): string[] =>
      layout.filter((f) => f.recipientId === recipient && f.id !== sig).map((f) => n(f.id, recipient));
    assert.deepEqual(lockOf(n('sig')), {
      type: 'SigFieldLock',
      action: 'Include',
      fields: ids(R, 'sig'),
      p: false,
    });
    assert.deepEqual(lockOf(n('sig', 'second signer'))?.fields, [
      n('name', 'second signer'),
      n('choice', 'second signer'),
    ]);
    assert.equal(lockOf(n('sig', 'alone')), null, 'no other field: no /Lock');
    assert.ok(qpdfCheck(out).ok, qpdfCheck(out).output);
  });

  test("a signature field prepared with lockOnSigning: false (a USB DSC signer's) gets no /Lock", () => {
    const layout = LAYOUT.map((f) => (f.type === FIELD_TYPES.SIGNATURE ? { ...f, lockOnSigning: false } : f));
    const out = prepareForm(base(), layout).bytes;
    const reader = PdfReader.open(out);
    const info = inspectPdf(out).signatureFields.find((f) => f.name === n('sig'));
    assert.ok(info?.ref);
    const field = reader.getObject(new PdfRef(info.ref.num, info.ref.gen)) as PdfDict;
    assert.equal(field.has('Lock'), false);
  });

  test('a bad layout is refused with one error per field', () => {
    const bad: FormFieldLayout[] = [
      { type: 14, page: 1, rect: at(0, 0, 10, 10), recipientId: R, id: 'a' },
      { type: FIELD_TYPES.TEXT, page: 3, rect: at(0, 0, 10, 10), recipientId: R, id: 'b' },
      { type: FIELD_TYPES.TEXT, page: 1, rect: at(600, 0, 100, 10), recipientId: R, id: 'c' },
      { type: FIELD_TYPES.DROPDOWN, page: 1, rect: at(0, 0, 10, 10), recipientId: R, id: 'd' },
      { type: FIELD_TYPES.TEXT, page: 1, rect: at(0, 0, 10, 10), recipientId: R, id: 'd' },
      { type: FIELD_TYPES.CHECKBOX, page: 1, rect: at(0, 0, 10, 10), recipientId: R, id: 'e', value: 'yes' },
    ];
    assert.throws(
      () => prepareForm(base(), bad),
      (e) =>
        isMoharError(e, 'invalid_field_layout') &&
        JSON.stringify(e.errors!.map((x) => [x.index, x.code])) ===
          JSON.stringify([
            [0, 'unknown_field_type'],
            [1, 'page_out_of_range'],
            [2, 'outside_page'],
            [3, 'options_missing'],
            [4, 'field_name_taken'],
            [5, 'value_invalid'],
          ]),
    );
  });

  test('certified documents: P=1 refuses everything, P=2 only takes signature fields', () => {
    assert.throws(
      () => prepareForm(samples.certified(1), [LAYOUT[0]!]),
      (e) => isMoharError(e, 'document_locked'),
    );
    assert.throws(
      () => prepareForm(samples.certified(2), [LAYOUT[3]!]),
      (e) => isMoharError(e, 'invalid_field_layout') && e.errors![0]!.code === 'document_locked',
    );
    assert.ok(prepareForm(samples.certified(2), [LAYOUT[0]!]).bytes.length > 0);
  });

  test('radio layout: stacked when tall enough, else in a row', () => {
    assert.deepEqual(
      radioLayout(at(0, 0, 100, 60), 3).map((r) => [r.x, r.y, r.width, r.height]),
      [
        [0, 0, 100, 20],
        [0, 20, 100, 20],
        [0, 40, 100, 20],
      ],
    );
    assert.deepEqual(
      radioLayout(at(10, 0, 90, 12), 3).map((r) => [r.x, r.y, r.width, r.height]),
      [
        [10, 0, 30, 12],
        [40, 0, 30, 12],
        [70, 0, 30, 12],
      ],
    );
  });
});

describe('fillForm', () => {
  test('values as qpdf reads them, appearances as poppler draws them, one revision', { skip }, () => {
    const prepared = prepareForm(base(), LAYOUT).bytes;
    const filled = fillForm(prepared, {
      [n('initials')]: 'RK',
      [n('name')]: 'राम कुमार',
      [n('email')]: 'ram@example.in',
      [n('agree')]: true,
      [n('plan')]: 'प्रो',
      [n('size')]: 'Large',
      [n('name', 'second signer')]: 'Second Person',
      [n('choice', 'second signer')]: 'No',
    });
    assertPrefix(prepared, filled);
    assert.equal(PdfReader.open(filled).xref.sections.length, 3);
    assert.ok(qpdfCheck(filled).ok, qpdfCheck(filled).output);
    const values = new Map(qpdfFields(filled).map((f) => [f.fullname, f.value]));
    assert.equal(values.get(n('initials')), 'u:RK');
    assert.equal(values.get(n('name')), 'u:राम कुमार', 'UTF-16BE value kept exactly');
    assert.equal(values.get(n('agree')), '/Yes');
    assert.equal(values.get(n('plan')), 'u:प्रो');
    assert.equal(values.get(n('size')), '/2');
    assert.equal(values.get(n('choice', 'second signer')), '/1');
    // our reader decodes the same text
    const r = PdfReader.open(filled);
    const nameField = findField(r, n('name'));
    assert.equal((nameField.get('V') as PdfString).toText(), 'राम कुमार');
    // the filled name (transliterated "Ram Kumar") is drawn inside its rectangle on page 1...
    const full = LAYOUT[3]!.rect;
    assert.ok(hasDarkPixelsIn(filled, 1, full) && !hasDarkPixelsIn(prepared, 1, full), 'page 1 name field');
    // ...and upright on the rotated page 2
    const second = LAYOUT[13]!.rect;
    assert.ok(hasDarkPixelsIn(filled, 2, second) && !hasDarkPixelsIn(prepared, 2, second), 'page 2 name field');
  });

  test('a signature made before filling stays valid, and the next signer can still sign', { skip }, async () => {
    const prepared = prepareForm(base(), LAYOUT).bytes;
    const first = await signPdf(
      prepared,
      { field: { name: n('sig') }, signingTime: new Date(), name: 'Ram Kumar' },
      signer!.callback(),
    );
    const filled = fillForm(first.bytes, {
      [n('name')]: 'Ram Kumar',
      [n('agree')]: 'true',
      [n('size')]: 'Small',
      [n('plan')]: 'Pro',
    });
    let report = pdfsig(filled);
    assert.equal(report.signatures[0]!.validation, 'Signature is Valid.', report.output);
    const second = await signPdf(
      filled,
      { field: { page: 2, rect: at(300, 300, 200, 50) }, signingTime: new Date(), name: 'Second' },
      signer!.callback(),
    );
    report = pdfsig(second.bytes);
    assert.deepEqual(
      report.signatures.map((s) => s.validation),
      ['Signature is Valid.', 'Signature is Valid.'],
      report.output,
    );
    assert.ok(qpdfCheck(second.bytes).ok);
  });

  test('unknown fields, signature fields and bad values are refused, listing what can be filled', () => {
    const prepared = prepareForm(base(), LAYOUT).bytes;
    assert.throws(
      () => fillForm(prepared, { nope: 'x' }),
      (e) =>
        isMoharError(e, 'form_field_not_found') &&
        e.message.includes(`"${n('name')}"`) &&
        !e.message.includes(`"${n('sig')}"`),
    );
    assert.throws(
      () => fillForm(prepared, { [n('sig')]: 'x' }),
      (e) => isMoharError(e, 'form_value_invalid'),
    );
    assert.throws(
      () => fillForm(prepared, { [n('agree')]: 'maybe' }),
      (e) => isMoharError(e, 'form_value_invalid'),
    );
    assert.throws(
      () => fillForm(prepared, { [n('size')]: 'Huge' }),
      (e) => isMoharError(e, 'form_value_invalid') && /Small, Medium, Large/.test(e.message),
    );
    assert.throws(
      () => fillForm(prepared, { [n('plan')]: 'Enterprise' }),
      (e) => isMoharError(e, 'form_value_invalid'),
    );
    assert.throws(
      () => fillForm(prepared, { [n('name')]: true }),
      (e) => isMoharError(e, 'form_value_invalid'),
    );
    assert.throws(
      () => fillForm(prepared, {}),
      (e) => isMoharError(e, 'bad_request'),
    );
  });

  test('a P=1 certified document cannot be filled', () => {
    assert.throws(
      () => fillForm(samples.certified(1), { x: 'y' }),
      (e) => isMoharError(e, 'document_locked'),
    );
  });

  test('forms made elsewhere: separate widget kid, no appearance, custom on-state, export values', { skip }, () => {
    const pdf = buildPdf(
      [
        {
          num: 1,
          body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 6 0 R 7 0 R] /DA (/Helv 0 Tf 0 g) >> >>',
        },
        { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
        { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [5 0 R 6 0 R 7 0 R] >>' },
        { num: 4, body: '<< /FT /Tx /T (Company) /DA (/Helv 11 Tf 0 g) /Kids [5 0 R] >>' },
        { num: 5, body: '<< /Type /Annot /Subtype /Widget /Parent 4 0 R /Rect [100 600 300 620] /P 3 0 R >>' },
        {
          num: 6,
          body: '<< /FT /Btn /T (Subscribe) /Type /Annot /Subtype /Widget /Rect [100 560 112 572] /P 3 0 R /V /Off /AS /Off /AP << /N << /On 8 0 R /Off 8 0 R >> >> >>',
        },
        {
          num: 7,
          body: '<< /FT /Ch /Ff 131072 /T (Country) /Opt [[(IN) (India)] [(FR) (France)]] /Type /Annot /Subtype /Widget /Rect [100 500 250 520] /P 3 0 R /DA (/Helv 10 Tf 0 g) >>',
        },
        { num: 8, dict: '/Type /XObject /Subtype /Form /BBox [0 0 12 12]', stream: '' },
      ],
      '/Root 1 0 R',
    );
    const filled = fillForm(pdf, { Company: 'Acme (India) Pvt. Ltd.', Subscribe: true, Country: 'India' });
    const values = new Map(qpdfFields(filled).map((f) => [f.fullname, f.value]));
    assert.equal(values.get('Company'), 'u:Acme (India) Pvt. Ltd.');
    assert.equal(values.get('Subscribe'), '/On', "the field's own on-state name");
    assert.equal(values.get('Country'), 'u:IN', 'export value stored, display value drawn');
    const r = PdfReader.open(filled);
    const widget = r.getObject(new PdfRef(5, 0)) as PdfDict;
    assert.ok(r.getDict(widget, 'AP'), 'the kid widget got an appearance');
    assert.equal(r.getName(r.getObject(new PdfRef(6, 0)) as PdfDict, 'AS'), 'On');
    assert.ok(hasDarkPixelsIn(filled, 1, at(100, 172, 200, 20)), 'company name drawn');
    assert.ok(qpdfCheck(filled).ok, qpdfCheck(filled).output);
  });
});

function findField(r: PdfReader, fq: string): PdfDict {
  const walk = (node: unknown, prefix: string): PdfDict | undefined => {
    const d = r.resolve(node as PdfRef) as PdfDict;
    const t = d.get('T');
    const name = t instanceof PdfString ? (prefix ? `${prefix}.${t.toText()}` : t.toText()) : prefix;
    if (name === fq) return d;
    for (const k of r.getArray(d, 'Kids')?.items ?? []) {
      const hit = walk(k, name);
      if (hit) return hit;
    }
    return undefined;
  };
  for (const f of r.getArray(r.getDict(r.catalog, 'AcroForm'), 'Fields')!.items) {
    const hit = walk(f, '');
    if (hit) return hit;
  }
  throw new Error(`no field ${fq}`);
}

/** True when pdftoppm draws dark pixels strictly inside the view rectangle of the page. */
function hasDarkPixelsIn(
  pdf: Uint8Array,
  page: number,
  rect: { x: number; y: number; width: number; height: number },
): boolean {
  const img = renderPageGray(Buffer.from(pdf), page);
  for (let y = Math.ceil(rect.y) + 1; y < rect.y + rect.height - 1; y++) {
    for (let x = Math.ceil(rect.x) + 1; x < rect.x + rect.width - 1; x++) {
      if (img.pixels[y * img.width + x]! < 128) return true;
    }
  }
  return false;
}
