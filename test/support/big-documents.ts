/**
 * Large documents made by code for issue 30 (no third-party file may be committed):
 *
 * - manualLikePdf(pages): shaped like a pdfTeX reference manual. Xref stream, object streams of
 *   ~200 members each, a 6-ary page tree, per page a content stream, two link annotations and an
 *   outline item, 60 shared fonts. Signing needs a handful of these objects; a reader that parses
 *   every object stream member pays for all of them.
 * - scoreLikePdf(megabytes): shaped like a Ghostscript-made score. Classic xref table, one large
 *   incompressible image per page and thousands of small objects (fonts, forms, content streams).
 */
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { buildPdf, objectStream, type FixtureObject } from './pdf-fixtures.js';

interface Packed {
  readonly num: number;
  readonly body: string;
}

/** A tree of /Pages nodes over `leaves` (object numbers), `fanout` kids per node; returns the root's number. */
function pageTree(
  leaves: number[],
  fanout: number,
  nextNum: () => number,
  out: Packed[],
  parents: Map<number, number>,
): number {
  let level = leaves.map((num) => ({ num, count: 1 }));
  while (level.length > 1) {
    const up: { num: number; count: number }[] = [];
    for (let i = 0; i < level.length; i += fanout) {
      const kids = level.slice(i, i + fanout);
      up.push({ num: nextNum(), count: kids.reduce((s, k) => s + k.count, 0) });
      const node = up[up.length - 1]!;
      for (const k of kids) parents.set(k.num, node.num);
      out.push({
        num: node.num,
        body: `<< /Type /Pages /Kids [${kids.map((k) => `${k.num} 0 R`).join(' ')}] /Count ${node.count} >>`,
      });
    }
    level = up;
  }
  return level[0]!.num;
}

/** A pdfTeX-manual-like file with `pages` pages, xref stream and object streams (see the module comment). */
export function manualLikePdf(pages = 2400): Buffer {
  let next = 1;
  const nextNum = (): number => next++;
  const catalog = nextNum();
  const fonts = Array.from({ length: 60 }, nextNum);
  const packed: Packed[] = [];
  const plain: FixtureObject[] = [];
  fonts.forEach((num, i) =>
    packed.push({
      num,
      body: `<< /Type /Font /Subtype /Type1 /BaseFont /LMRoman${i}-Regular /FirstChar 32 /LastChar 126 /Widths [${'500 '.repeat(95).trim()}] >>`,
    }),
  );
  const pageNums: number[] = [];
  const pageBodies = new Map<number, (parent: number) => string>();
  const outlines: number[] = [];
  for (let p = 0; p < pages; p++) {
    const page = nextNum();
    const content = nextNum();
    const annots = [nextNum(), nextNum()];
    const text = `BT /F${p % 60} 10 Tf 72 720 Td (Page ${p + 1}: ${'lorem ipsum dolor sit amet '.repeat(40)}) Tj ET\n`;
    plain.push({
      num: content,
      dict: '/Filter /FlateDecode',
      stream: deflateSync(Buffer.from(text.repeat(6), 'latin1')),
    });
    for (const [k, a] of annots.entries()) {
      packed.push({
        num: a,
        body: `<< /Type /Annot /Subtype /Link /Border [0 0 0] /Rect [72 ${600 + k * 20} 200 ${612 + k * 20}] /A << /S /GoTo /D [${page} 0 R /XYZ 0 842 null] >> >>`,
      });
    }
    const fontRes = [0, 1, 2].map((d) => `/F${(p + d) % 60} ${fonts[(p + d) % 60]} 0 R`).join(' ');
    pageBodies.set(
      page,
      (parent) =>
        `<< /Type /Page /Parent ${parent} 0 R /MediaBox [0 0 612 792] /Contents ${content} 0 R /Resources << /Font << ${fontRes} >> /ProcSet [/PDF /Text] >> /Annots [${annots.map((a) => `${a} 0 R`).join(' ')}] >>`,
    );
    pageNums.push(page);
    outlines.push(nextNum());
  }
  const parents = new Map<number, number>();
  const root = pageTree(pageNums, 6, nextNum, packed, parents);
  for (const page of pageNums) packed.push({ num: page, body: pageBodies.get(page)!(parents.get(page)!) });
  const outlineRoot = nextNum();
  outlines.forEach((num, i) => {
    const links = `${i > 0 ? `/Prev ${outlines[i - 1]} 0 R ` : ''}${i + 1 < outlines.length ? `/Next ${outlines[i + 1]} 0 R ` : ''}`;
    packed.push({
      num,
      body: `<< /Title (Section ${i + 1}) /Parent ${outlineRoot} 0 R ${links}/Dest [${pageNums[i]} 0 R /XYZ 0 792 null] >>`,
    });
  });
  packed.push({
    num: outlineRoot,
    body: `<< /Type /Outlines /First ${outlines[0]} 0 R /Last ${outlines[outlines.length - 1]} 0 R /Count ${outlines.length} >>`,
  });
  packed.push({
    num: catalog,
    body: `<< /Type /Catalog /Pages ${root} 0 R /Outlines ${outlineRoot} 0 R /PageMode /UseOutlines >>`,
  });
  packed.sort((a, b) => a.num - b.num);
  const streams: FixtureObject[] = [];
  const rows = new Map<number, [number, number, number]>();
  for (let i = 0; i < packed.length; i += 200) {
    const members = packed.slice(i, i + 200);
    const num = nextNum();
    streams.push(objectStream(num, members));
    members.forEach((m, index) => rows.set(m.num, [2, num, index]));
  }
  return withXrefStream([...plain, ...streams], rows, nextNum(), catalog);
}

/** Writes the objects, then an xref stream (/W [1 4 2]) listing them and `packedRows`. */
function withXrefStream(
  objects: FixtureObject[],
  packedRows: Map<number, [number, number, number]>,
  xrefNum: number,
  catalog: number,
): Buffer {
  const head = Buffer.from('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  const parts: Buffer[] = [head];
  let pos = head.length;
  const rows = new Map(packedRows);
  rows.set(0, [0, 0, 65535]);
  for (const o of objects) {
    rows.set(o.num, [1, pos, 0]);
    const bytes = objectBytes(o);
    parts.push(bytes);
    pos += bytes.length;
  }
  rows.set(xrefNum, [1, pos, 0]);
  const size = xrefNum + 1;
  const table = Buffer.alloc(size * 7);
  for (const [num, [t, f2, f3]] of rows) {
    table.writeUInt8(t, num * 7);
    table.writeUInt32BE(f2, num * 7 + 1);
    table.writeUInt16BE(f3, num * 7 + 5);
  }
  const data = deflateSync(table);
  const id = randomBytes(16).toString('hex');
  parts.push(
    Buffer.from(
      `${xrefNum} 0 obj\n<< /Type /XRef /W [1 4 2] /Size ${size} /Root ${catalog} 0 R /ID [<${id}> <${id}>] /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
      'latin1',
    ),
    data,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${pos}\n%%EOF\n`, 'latin1'),
  );
  return Buffer.concat(parts);
}

function objectBytes(o: FixtureObject): Buffer {
  const head = `${o.num} ${o.gen ?? 0} obj\n`;
  if ('body' in o) return Buffer.from(`${head}${o.body}\nendobj\n`, 'latin1');
  const data = typeof o.stream === 'string' ? Buffer.from(o.stream, 'latin1') : o.stream;
  return Buffer.concat([
    Buffer.from(`${head}<< ${o.dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream\nendobj\n', 'latin1'),
  ]);
}

/** A Ghostscript-score-like file of about `megabytes` MB with a classic xref table (see the module comment). */
export function scoreLikePdf(megabytes = 29, pages = 40): Buffer {
  const imageBytes = Math.floor((megabytes * 1_000_000 * 0.9) / pages);
  const side = Math.floor(Math.sqrt(imageBytes / 3));
  const objects: FixtureObject[] = [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' }];
  let next = 3;
  const kids: number[] = [];
  const smallPerPage = 250;
  for (let p = 0; p < pages; p++) {
    const page = next++;
    const image = next++;
    const content = next++;
    const small: number[] = [];
    for (let s = 0; s < smallPerPage; s++) {
      const num = next++;
      small.push(num);
      objects.push(
        s % 2 === 0
          ? {
              num,
              body: `<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 0.001 0 0] /FontBBox [0 0 ${s} ${p}] /Encoding << /Differences [0 /g${s}] >> >>`,
            }
          : {
              num,
              dict: '/Type /XObject /Subtype /Form /BBox [0 0 10 10]',
              stream: `0 0 m ${s} ${p} l S\n`.repeat(20),
            },
      );
    }
    objects.push({
      num: image,
      dict: `/Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceRGB /BitsPerComponent 8`,
      stream: randomBytes(side * side * 3),
    });
    const forms = small.filter((_, i) => i % 2 === 1);
    const fonts = small.filter((_, i) => i % 2 === 0);
    objects.push({
      num: content,
      dict: '',
      stream: `q ${side} 0 0 ${side} 0 0 cm /Im0 Do Q\n${forms.map((_, i) => `/X${i} Do`).join('\n')}\n`,
    });
    objects.push({
      num: page,
      body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${side} ${side}] /Contents ${content} 0 R /Resources << /XObject << /Im0 ${image} 0 R ${forms.map((f, i) => `/X${i} ${f} 0 R`).join(' ')} >> /Font << ${fonts.map((f, i) => `/T${i} ${f} 0 R`).join(' ')} >> >> >>`,
    });
    kids.push(page);
  }
  objects.push({ num: 2, body: `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${pages} >>` });
  const id = randomBytes(16).toString('hex');
  return buildPdf(objects, `/Root 1 0 R /ID [<${id}> <${id}>]`, { version: '1.4' });
}
