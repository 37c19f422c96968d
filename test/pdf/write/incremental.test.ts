import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { PdfReader, assertPrefix, getPages } from '../../../pdf/index.js';
import { PdfDict, PdfRef, PdfArray, PdfString } from '../../../pdf/objects.js';
import { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { textString } from '../../../pdf/write/text.js';
import { isMoharError } from '../../../common/errors.js';
import {
  samples,
  makePdf,
  appendUpdate,
  qpdfCheck,
  hasTool,
  runOnFile,
  hostile,
  buildPdf,
} from '../../support/pdf-fixtures.js';

const QPDF = hasTool('qpdf');

/** Adds /MoharTest to the catalog (new version) pointing at a new dictionary. */
function touchCatalog(pdf: Uint8Array, value = 'hello'): { bytes: Buffer; update: IncrementalUpdate; newRef: PdfRef } {
  const reader = PdfReader.open(pdf);
  const update = new IncrementalUpdate(reader);
  const cat = update.editDict(reader.trailer.get('Root') as PdfRef);
  const d = new PdfDict();
  d.set('Value', textString(value));
  const newRef = update.add(d);
  cat.set('MoharTest', newRef);
  return { bytes: update.write().bytes, update, newRef };
}

const KINDS: Record<string, () => Buffer> = {
  classic: () => makePdf({ pages: 2 }),
  'object streams + xref stream': samples.objectStreams,
  linearized: samples.linearized,
  'earlier incremental update': samples.incrementallyUpdated,
  hybrid: samples.hybrid,
  'no EOL after %%EOF': () => {
    const pdf = makePdf({ pages: 1 });
    return pdf.subarray(0, pdf.length - 1);
  },
  'junk after %%EOF': () =>
    Buffer.concat([makePdf({ pages: 1 }), Buffer.from('\r\n<html>junk from a mail gateway</html>\n\0\0\0', 'latin1')]),
  'junk after %%EOF without EOL': () => Buffer.concat([makePdf({ pages: 1 }), Buffer.from('garbage', 'latin1')]),
};

describe('one incremental revision on every kind of file', () => {
  for (const [kind, make] of Object.entries(KINDS)) {
    test(kind, { skip: !QPDF && 'qpdf not installed' }, () => {
      const original = make();
      const before = PdfReader.open(original);
      const { bytes, newRef } = touchCatalog(original, `kind ${kind}`);
      assertPrefix(original, bytes);
      assert.deepEqual(bytes.subarray(0, original.length), original, 'earlier bytes unchanged');
      const after = PdfReader.open(bytes);
      assert.equal(after.xref.reconstructed, false);
      assert.equal(after.xref.sections.length, before.xref.sections.length + 1, 'exactly one new section');
      const expectedKind = before.xrefKind === 'stream' ? 'stream' : 'table';
      assert.equal(after.xrefKind, expectedKind, 'same kind as the previous section (hybrid -> table)');
      assert.equal(after.xref.sections[0]!.trailer.get('Prev'), before.xref.startxref, '/Prev = previous startxref');
      assert.ok(after.size > before.size, '/Size grows');
      assert.ok(newRef.num >= before.size, 'new numbers start at the old /Size');
      assert.equal(after.revisions.length, before.revisions.length + 1);
      // trailer keeps /Root and the first /ID element
      assert.equal((after.trailer.get('Root') as PdfRef).key, (before.trailer.get('Root') as PdfRef).key);
      const oldId = before.resolve(before.trailer.get('ID'));
      const newId = after.trailer.get('ID') as PdfArray;
      if (oldId instanceof PdfArray) {
        assert.deepEqual((newId.get(0) as PdfString).bytes, (oldId.get(0) as PdfString).bytes);
      }
      assert.ok(!after.trailer.has('XRefStm'), 'no /XRefStm in our section');
      // the new object is there and the document is still whole
      const cat = after.catalog;
      assert.equal((after.resolve(cat.get('MoharTest')) as PdfDict).get('Value') instanceof PdfString, true);
      assert.equal(getPages(after).length, getPages(before).length);
      const check = qpdfCheck(bytes);
      assert.ok(check.ok, check.output);
    });
  }

  test('a second update chains onto the first', () => {
    const once = touchCatalog(makePdf({ pages: 1 }), 'one').bytes;
    const twice = touchCatalog(once, 'two').bytes;
    assertPrefix(once, twice);
    const r = PdfReader.open(twice);
    assert.equal(r.xref.sections.length, 3);
    assert.equal(((r.resolve(r.catalog.get('MoharTest')) as PdfDict).get('Value') as PdfString).toText(), 'two');
    if (QPDF) assert.ok(qpdfCheck(twice).ok);
  });

  test('replacing an object inside an object stream writes a plain object of the same number', () => {
    const pdf = samples.objectStreams();
    const before = PdfReader.open(pdf);
    const pageRef = getPages(before)[0]!.ref!;
    assert.equal(before.objectOffset(pageRef.num), undefined, 'the page is compressed');
    const update = new IncrementalUpdate(before);
    update.editDict(pageRef).set('Rotate', 90);
    const bytes = update.write().bytes;
    const after = PdfReader.open(bytes);
    assert.equal(getPages(after)[0]!.rotate, 90);
    assert.ok(after.objectOffset(pageRef.num)! >= pdf.length);
    if (QPDF) assert.ok(qpdfCheck(bytes).ok);
  });

  test('qpdf sees the new objects and the right number of revisions', { skip: !QPDF && 'qpdf not installed' }, () => {
    const pdf = samples.objectStreams();
    const { bytes, newRef } = touchCatalog(pdf);
    const json = JSON.parse(runOnFile('qpdf', ['--json=2', '--json-key=qpdf'], bytes).stdout) as {
      qpdf: [unknown, Record<string, unknown>];
    };
    assert.ok(`obj:${newRef.num} 0 R` in json.qpdf[1]);
  });

  test(
    'a file with a broken xref gets a complete section and no /Prev',
    { skip: !QPDF && 'qpdf not installed' },
    () => {
      const broken = hostile.brokenStartxref();
      const before = PdfReader.open(broken);
      assert.equal(before.xref.reconstructed, true);
      const { bytes } = touchCatalog(broken);
      assertPrefix(broken, bytes);
      const after = PdfReader.open(bytes);
      assert.equal(after.xref.reconstructed, false, 'our section repairs the file');
      assert.equal(after.trailer.has('Prev'), false);
      assert.equal(getPages(after).length, 3);
      assert.ok(qpdfCheck(bytes).ok, qpdfCheck(bytes).output);
    },
  );

  test('files with junk before %PDF- keep their offset convention', { skip: !QPDF && 'qpdf not installed' }, () => {
    const junk = Buffer.concat([Buffer.alloc(100, 0x41), makePdf({ pages: 2 })]);
    const { bytes } = touchCatalog(junk);
    const after = PdfReader.open(bytes);
    assert.equal(after.xref.reconstructed, false);
    assert.equal(after.xref.sections.length, 2);
    assert.ok(after.catalog.has('MoharTest'));
  });

  test('the trailer keeps /Info and custom keys, drops section keys', () => {
    const pdf = buildPdf(
      [
        { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
        { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
        { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>' },
        { num: 4, body: '<< /Title (t) >>' },
      ],
      '/Root 1 0 R /Info 4 0 R /ID [<0102> <0304>] /Custom (x)',
    );
    const { bytes } = touchCatalog(pdf);
    const t = PdfReader.open(bytes).trailer;
    assert.equal((t.get('Info') as PdfRef).num, 4);
    assert.ok(t.has('Custom'));
    const id = t.get('ID') as PdfArray;
    assert.deepEqual([...(id.get(0) as PdfString).bytes], [1, 2]);
    assert.notDeepEqual([...(id.get(1) as PdfString).bytes], [3, 4], 'second /ID element renewed');
  });
});

describe('misuse is refused', () => {
  test('an allocated but never set object, an empty update, an unknown object', () => {
    const r = PdfReader.open(makePdf());
    const u = new IncrementalUpdate(r);
    assert.throws(
      () => u.write(),
      (e) => isMoharError(e, 'pdf_write_failed'),
    );
    u.allocate();
    assert.throws(
      () => u.write(),
      (e) => isMoharError(e, 'pdf_write_failed'),
    );
    assert.throws(
      () => new IncrementalUpdate(r).set(new PdfRef(77, 0), 1),
      (e) => isMoharError(e, 'pdf_write_failed'),
    );
  });
  test('assertPrefix notices a changed byte', () => {
    const pdf = makePdf();
    const changed = Buffer.from(touchCatalog(pdf).bytes);
    changed[10] = changed[10]! ^ 1;
    assert.throws(
      () => assertPrefix(pdf, changed),
      (e) => isMoharError(e, 'pdf_write_failed'),
    );
    assert.throws(
      () => assertPrefix(pdf, pdf.subarray(0, 5)),
      (e) => isMoharError(e, 'pdf_write_failed'),
    );
  });
  test('editing never mutates what the reader cached', () => {
    const r = PdfReader.open(appendUpdate(makePdf(), []));
    const root = r.trailer.get('Root') as PdfRef;
    const u = new IncrementalUpdate(r);
    u.editDict(root).set('Foo', 1);
    assert.equal(r.catalog.has('Foo'), false);
    assert.equal((u.resolve(root) as PdfDict).get('Foo'), 1);
  });
});
