import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { inspectPdf, PdfReader, getPages, listSignatureFields } from '../../pdf/index.js';
import { docMdpPermission } from '../../pdf/acroform.js';
import { makePdf, buildPdf, withObjectStreams, runOnFile, hasTool } from '../support/pdf-fixtures.js';

const FORM = makePdf({
  pages: [{}, { rotate: 90 }, { mediaBox: [100, 100, 700, 900], rotate: 180 }],
  signatureFields: [
    { name: 'Empty', page: 1, rect: [100, 100, 300, 150] },
    { name: 'Approver', parent: 'Signers', page: 2, rect: [10, 20, 110, 60], separateWidget: true, signed: true },
    { name: 'Witness', parent: 'Signers', page: 3, rect: [200, 300, 260, 330], inAnnots: false },
    { name: 'Invisible', page: 1 },
  ],
});

describe('signature fields', () => {
  const fields = inspectPdf(FORM).signatureFields;
  const byName = new Map(fields.map((f) => [f.name, f]));

  test('fully qualified names, in document order', () => {
    assert.deepEqual(
      fields.map((f) => f.name),
      ['Empty', 'Signers.Approver', 'Signers.Witness', 'Invisible'],
    );
  });

  test('signed only where /V is present', () => {
    assert.deepEqual(
      fields.map((f) => f.signed),
      [false, true, false, false],
    );
  });

  test('page via /Annots, or via /P when the page does not list the widget', () => {
    assert.deepEqual(
      fields.map((f) => f.pageNumber),
      [1, 2, 3, 1],
    );
  });

  test('widget rectangles in the view convention, on rotated and offset pages', () => {
    assert.deepEqual(byName.get('Empty')!.rect, { x: 100, y: 642, width: 200, height: 50 });
    // rotate 90 on Letter: view x = uy, view y = ux
    assert.deepEqual(byName.get('Signers.Approver')!.rect, { x: 20, y: 10, width: 40, height: 100 });
    // rotate 180 on [100 100 700 900]: view x = 700 - ux, view y = uy - 100
    assert.deepEqual(byName.get('Signers.Witness')!.rect, { x: 440, y: 200, width: 60, height: 30 });
    assert.deepEqual(byName.get('Invisible')!.rect, { x: 0, y: 792, width: 0, height: 0 });
    assert.deepEqual(byName.get('Signers.Approver')!.widgets[0]!.userRect, [10, 20, 110, 60]);
  });

  test('object references for later signing', () => {
    const approver = byName.get('Signers.Approver')!;
    assert.ok(approver.ref && approver.widgets[0]!.ref);
    assert.notEqual(approver.ref.num, approver.widgets[0]!.ref!.num, 'separate widget');
    assert.equal(byName.get('Empty')!.ref!.num, byName.get('Empty')!.widgets[0]!.ref!.num, 'merged field and widget');
  });

  test('the same answers after qpdf moves everything into object streams', () => {
    assert.deepEqual(
      inspectPdf(withObjectStreams(FORM)).signatureFields.map((f) => [f.name, f.signed, f.pageNumber, f.rect]),
      fields.map((f) => [f.name, f.signed, f.pageNumber, f.rect]),
    );
  });

  test('agrees with qpdf --json on names, pages and values', { skip: !hasTool('qpdf') && 'qpdf not installed' }, () => {
    const json = JSON.parse(runOnFile('qpdf', ['--json=2', '--json-key=acroform'], FORM).stdout) as {
      acroform: { fields: { fullname: string; fieldtype: string; pageposfrom1: number; value: unknown }[] };
    };
    // qpdf lists fields through the widgets pages show, so the widget missing from /Annots is absent.
    const theirs = json.acroform.fields
      .filter((f) => f.fieldtype === '/Sig')
      .map((f) => [f.fullname, f.value !== null, f.pageposfrom1])
      .sort();
    const ours = fields
      .filter((f) => f.name !== 'Signers.Witness')
      .map((f) => [f.name, f.signed, f.pageNumber])
      .sort();
    assert.deepEqual(theirs, ours);
  });

  test('other field types are skipped; /FT is inherited; cycles in /Kids are ignored', () => {
    const pdf = buildPdf(
      [
        { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 5 0 R 5 0 R] >> >>' },
        { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
        { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [6 0 R 7 0 R] >>' },
        { num: 4, body: '<< /FT /Tx /T (Name) /Rect [0 0 10 10] /Subtype /Widget >>' },
        { num: 5, body: '<< /FT /Sig /T <FEFF0053006900e9> /Kids [6 0 R 9 0 R 5 0 R] >>' },
        { num: 6, body: '<< /T (a) /Kids [8 0 R] /Parent 5 0 R >>' },
        { num: 7, body: '<< /T (b) /Subtype /Widget /Rect [0 0 1 1] /Parent 5 0 R /V << /Type /Sig >> >>' },
        { num: 8, body: '<< /Subtype /Widget /Rect [5 5 15 15] /Parent 6 0 R /P 3 0 R >>' },
        { num: 9, body: '7 0 R' },
      ],
      '/Root 1 0 R',
    );
    const found = inspectPdf(pdf).signatureFields;
    assert.deepEqual(
      found.map((f) => f.name),
      ['Sié.a', 'Sié.b'],
    );
    assert.deepEqual(
      found.map((f) => f.signed),
      [false, true],
    );
    assert.deepEqual(
      found.map((f) => f.pageNumber),
      [1, 1],
    );
    assert.equal(found[0]!.widgets.length, 1);
    assert.deepEqual(found[0]!.rect, { x: 5, y: 777, width: 10, height: 10 });
  });

  test('a document without a form has no fields', () => {
    assert.deepEqual(inspectPdf(makePdf()).signatureFields, []);
  });
});

describe('DocMDP certification level', () => {
  for (const p of [1, 2, 3] as const) {
    test(`P=${p}`, () => {
      assert.equal(inspectPdf(makePdf({ docMdp: p })).docMdpPermission, p);
    });
  }

  test('not certified', () => {
    assert.equal(inspectPdf(makePdf({ signatureFields: [{ name: 'S', signed: true }] })).docMdpPermission, null);
  });

  test('certified without /P means the default, 2', () => {
    const pdf = makePdf({
      catalogExtra: '/Perms << /DocMDP << /Type /Sig /Reference [<< /TransformMethod /DocMDP >>] >> >>',
    });
    const reader = PdfReader.open(pdf);
    assert.equal(docMdpPermission(reader), 2);
    assert.deepEqual(listSignatureFields(reader, getPages(reader)), []);
  });
});
