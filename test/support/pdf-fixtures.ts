/**
 * Test PDFs, built in memory. Reusable by any test (pdf/, server/):
 *
 *   samples.*                ready-made documents (empty or signed field, certified, updated, ...)
 *   makePdf(opts)            a valid classic-xref PDF: pages with chosen boxes/rotation, signature
 *                            fields (empty or signed-looking), DocMDP certification, big page trees
 *   buildPdf(objects, ...)   low level: writes the given objects with a correct xref table
 *   appendUpdate(pdf, ...)   appends an incremental update section (classic table, /Prev)
 *   makeHybridPdf(n)         classic table + /XRefStm, pages in an object stream
 *   withObjectStreams, linearize, encrypt   post-process with qpdf
 *   hostile.*                files that must be refused or repaired (nesting bomb, inflate bomb,
 *                            100,000 pages, /Kids cycle, /Prev cycle, broken startxref, truncation)
 *   qpdfPageCount, qpdfCheck, pdfinfoPages, ghostscriptPdf, hasTool   ask the reference tools
 *
 * Everything returns a Buffer; nothing here imports the code under test.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync, deflateSync, constants as zlibConstants } from 'node:zlib';

export type FixtureBox = [number, number, number, number];

/** One indirect object: `body` is its PDF text, or `dict` (inside << >>, no /Length) + `stream` data. */
export type FixtureObject = { num: number; gen?: number; body: string } | FixtureStreamObject;
export type FixtureStreamObject = { num: number; gen?: number; dict: string; stream: Buffer | string };

export interface PageSpec {
  /** Default [0 0 612 792] unless `inheritedMediaBox` is set on the document. */
  mediaBox?: FixtureBox;
  cropBox?: FixtureBox;
  rotate?: number;
  /** Adds a content stream that draws this text (default: no content). */
  text?: string;
  /** Raw content-stream operators, e.g. "0 g 100 100 50 20 re f" (appended after `text`). */
  content?: string;
}

export interface SignatureFieldSpec {
  /** Partial name (/T). With `parent`, the fully qualified name is `${parent}.${name}`. */
  name: string;
  parent?: string;
  /** 1-based page of the widget (default 1). */
  page?: number;
  /** Widget /Rect in default user space (default [0 0 0 0]: an invisible signature). */
  rect?: FixtureBox;
  /** Adds a signature dictionary as /V (signed-looking; the CMS is fake). */
  signed?: boolean;
  /** Widget as a separate kid of the field instead of merged into the field (default false). */
  separateWidget?: boolean;
  /** List the widget in the page's /Annots (default true); /P always points at the page. */
  inAnnots?: boolean;
}

export interface PdfFixtureOptions {
  /** A page count (Letter pages) or one spec per page. Default 1. */
  pages?: number | PageSpec[];
  /** /MediaBox on the root /Pages node, inherited by pages without their own. */
  inheritedMediaBox?: FixtureBox;
  /** /Rotate on the root /Pages node. */
  inheritedRotate?: number;
  /** Build a tree with at most this many kids per /Pages node (default: one flat /Kids array). */
  kidsPerNode?: number;
  /** Write this root /Count instead of the true page count (a lying tree). */
  countOverride?: number;
  signatureFields?: SignatureFieldSpec[];
  /** Certify the document: /Perms /DocMDP with this /P. */
  docMdp?: 1 | 2 | 3;
  /** Header version (default "1.7"). */
  version?: string;
  /** Extra text inside the catalog dictionary. */
  catalogExtra?: string;
  /** Extra text inside the trailer dictionary. */
  trailerExtra?: string;
}

const LETTER: FixtureBox = [0, 0, 612, 792];

/**
 * A complete, valid PDF with a classic xref table. Object 1 is the catalog, 2 the root /Pages,
 * pages are objects 3, 4, ... in page order; fields, widgets and contents come after them.
 */
export function makePdf(opts: PdfFixtureOptions = {}): Buffer {
  const specs: PageSpec[] =
    typeof opts.pages === 'number' || opts.pages === undefined
      ? Array.from({ length: opts.pages ?? 1 }, () => ({}))
      : opts.pages;
  const objects: FixtureObject[] = [];
  let next = 3;
  const alloc = (): number => next++;
  const pageNums = specs.map(() => alloc());
  const annots = new Map<number, number[]>(); // page index -> widget numbers
  const fieldNums: number[] = [];
  const parents = new Map<string, { num: number; kids: number[] }>();

  for (const f of opts.signatureFields ?? []) {
    const pageIndex = (f.page ?? 1) - 1;
    const pageRef = `${pageNums[pageIndex]} 0 R`;
    const fieldNum = alloc();
    const widgetNum = f.separateWidget ? alloc() : fieldNum;
    let parentRef = '';
    if (f.parent) {
      let p = parents.get(f.parent);
      if (!p) {
        p = { num: alloc(), kids: [] };
        parents.set(f.parent, p);
        fieldNums.push(p.num);
      }
      p.kids.push(fieldNum);
      parentRef = ` /Parent ${p.num} 0 R`;
    } else fieldNums.push(fieldNum);
    let value = '';
    if (f.signed) {
      const sigNum = alloc();
      objects.push({ num: sigNum, body: sigDict('') });
      value = ` /V ${sigNum} 0 R`;
    }
    const widget = `/Type /Annot /Subtype /Widget /Rect [${(f.rect ?? [0, 0, 0, 0]).join(' ')}] /F 132 /P ${pageRef}`;
    if (f.separateWidget) {
      objects.push({
        num: fieldNum,
        body: `<< /FT /Sig /T (${f.name})${value}${parentRef} /Kids [${widgetNum} 0 R] >>`,
      });
      objects.push({ num: widgetNum, body: `<< ${widget} /Parent ${fieldNum} 0 R >>` });
    } else {
      objects.push({ num: fieldNum, body: `<< /FT /Sig /T (${f.name})${value}${parentRef} ${widget} >>` });
    }
    if (f.inAnnots !== false) annots.set(pageIndex, [...(annots.get(pageIndex) ?? []), widgetNum]);
  }
  for (const [name, p] of parents) {
    objects.push({ num: p.num, body: `<< /T (${name}) /Kids [${p.kids.map((k) => `${k} 0 R`).join(' ')}] >>` });
  }

  // Page tree: flat, or grouped into /Pages nodes of at most kidsPerNode kids.
  const parentOf = new Map<number, number>();
  let level = pageNums.map((num) => ({ num, count: 1 }));
  const per = opts.kidsPerNode ?? Infinity;
  while (level.length > per) {
    const grouped: { num: number; count: number }[] = [];
    for (let i = 0; i < level.length; i += per) {
      const kids = level.slice(i, i + per);
      const num = alloc();
      const count = kids.reduce((s, k) => s + k.count, 0);
      for (const k of kids) parentOf.set(k.num, num);
      grouped.push({ num, count });
      objects.push({
        num,
        body: `<< /Type /Pages /Kids [${kids.map((k) => `${k.num} 0 R`).join(' ')}] /Count ${count} >>`,
      });
    }
    level = grouped;
  }
  for (const k of level) parentOf.set(k.num, 2);
  // Fix up /Parent of intermediate nodes now that the tree is known.
  for (const o of objects) {
    if ('body' in o && parentOf.has(o.num) && o.body.startsWith('<< /Type /Pages')) {
      o.body = o.body.replace('<< /Type /Pages', `<< /Type /Pages /Parent ${parentOf.get(o.num)} 0 R`);
    }
  }

  specs.forEach((spec, i) => {
    const num = pageNums[i]!;
    let extra = '';
    if (spec.mediaBox || !opts.inheritedMediaBox) extra += ` /MediaBox [${(spec.mediaBox ?? LETTER).join(' ')}]`;
    if (spec.cropBox) extra += ` /CropBox [${spec.cropBox.join(' ')}]`;
    if (spec.rotate !== undefined) extra += ` /Rotate ${spec.rotate}`;
    const a = annots.get(i);
    if (a) extra += ` /Annots [${a.map((n) => `${n} 0 R`).join(' ')}]`;
    if (spec.text !== undefined || spec.content !== undefined) {
      const c = alloc();
      const text = spec.text !== undefined ? `BT /F1 24 Tf 72 700 Td (${spec.text}) Tj ET\n` : '';
      objects.push({ num: c, dict: '', stream: text + (spec.content ?? '') });
      extra += ` /Contents ${c} 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>`;
    }
    objects.push({ num, body: `<< /Type /Page /Parent ${parentOf.get(num)} 0 R${extra} >>` });
  });

  let rootExtra = '';
  if (opts.inheritedMediaBox) rootExtra += ` /MediaBox [${opts.inheritedMediaBox.join(' ')}]`;
  if (opts.inheritedRotate !== undefined) rootExtra += ` /Rotate ${opts.inheritedRotate}`;
  objects.push({
    num: 2,
    body: `<< /Type /Pages /Kids [${level.map((k) => `${k.num} 0 R`).join(' ')}] /Count ${opts.countOverride ?? specs.length}${rootExtra} >>`,
  });

  let catalog = `/Type /Catalog /Pages 2 0 R`;
  if (fieldNums.length > 0) {
    catalog += ` /AcroForm << /Fields [${fieldNums.map((n) => `${n} 0 R`).join(' ')}] /SigFlags 3 >>`;
  }
  if (opts.docMdp) {
    const sig = alloc();
    const ref = `<< /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P ${opts.docMdp} /V /1.2 >> >>`;
    objects.push({ num: sig, body: sigDict(` /Reference [${ref}]`) });
    catalog += ` /Perms << /DocMDP ${sig} 0 R >>`;
  }
  if (opts.catalogExtra) catalog += ` ${opts.catalogExtra}`;
  objects.push({ num: 1, body: `<< ${catalog} >>` });
  return buildPdf(objects, `/Root 1 0 R${opts.trailerExtra ? ` ${opts.trailerExtra}` : ''}`, { version: opts.version });
}

function sigDict(extra: string): string {
  return `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /M (D:20240101000000Z)${extra} /ByteRange [0 10 20 10] /Contents <${'00'.repeat(64)}> >>`;
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

/** Writes objects then a correct xref table, trailer (with /Size) and startxref. */
export function buildPdf(objects: FixtureObject[], trailer: string, opts: { version?: string } = {}): Buffer {
  const parts: Buffer[] = [Buffer.from(`%PDF-${opts.version ?? '1.7'}\n%\xe2\xe3\xcf\xd3\n`, 'latin1')];
  let pos = parts[0]!.length;
  const offsets = new Map<number, [number, number]>();
  for (const o of objects) {
    offsets.set(o.num, [pos, o.gen ?? 0]);
    const b = objectBytes(o);
    parts.push(b);
    pos += b.length;
  }
  let size = 1;
  for (const n of offsets.keys()) size = Math.max(size, n + 1);
  parts.push(
    Buffer.from(
      xrefTable(offsets, true) + `trailer\n<< /Size ${size} ${trailer} >>\nstartxref\n${pos}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

/** Classic xref table text: one subsection per run of consecutive object numbers. */
function xrefTable(offsets: Map<number, [number, number]>, withFreeHead: boolean): string {
  const nums = [...offsets.keys()].sort((a, b) => a - b);
  let out = 'xref\n';
  const entry = (off: number, gen: number, kind: 'n' | 'f'): string =>
    `${String(off).padStart(10, '0')} ${String(gen).padStart(5, '0')} ${kind} \n`;
  let i = 0;
  if (withFreeHead) {
    let run = 1;
    while (offsets.has(run)) run++;
    out += `0 ${run}\n` + entry(0, 65535, 'f');
    for (let n = 1; n < run; n++) out += entry(...offsets.get(n)!, 'n');
    i = nums.indexOf(run - 1) + 1;
  }
  while (i < nums.length) {
    const start = nums[i]!;
    let end = start;
    while (offsets.has(end + 1)) end++;
    out += `${start} ${end - start + 1}\n`;
    for (let n = start; n <= end; n++) out += entry(...offsets.get(n)!, 'n');
    i = nums.indexOf(end) + 1;
  }
  return out;
}

/**
 * Appends an incremental update: the objects, an xref section listing only them, and a trailer
 * with /Prev. /Size and /Prev are computed; /Root is copied from the previous trailer unless
 * `trailerExtra` gives one.
 */
export function appendUpdate(pdf: Buffer, objects: FixtureObject[], trailerExtra = ''): Buffer {
  const text = pdf.toString('latin1');
  const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1] ?? NaN);
  const sizes = [...text.matchAll(/\/Size (\d+)/g)].map((m) => Number(m[1]));
  const roots = [...text.matchAll(/\/Root (\d+ \d+ R)/g)].map((m) => m[1]);
  const trailer = trailerExtra.includes('/Root')
    ? trailerExtra
    : `/Root ${roots[roots.length - 1]} ${trailerExtra}`.trim();
  const base = pdf[pdf.length - 1] === 0x0a ? pdf : Buffer.concat([pdf, Buffer.from('\n')]);
  let pos = base.length;
  const parts: Buffer[] = [base];
  const offsets = new Map<number, [number, number]>();
  for (const o of objects) {
    offsets.set(o.num, [pos, o.gen ?? 0]);
    const b = objectBytes(o);
    parts.push(b);
    pos += b.length;
  }
  const size = Math.max(sizes[sizes.length - 1] ?? 0, ...[...offsets.keys()].map((n) => n + 1));
  parts.push(
    Buffer.from(
      xrefTable(offsets, false) + `trailer\n<< /Size ${size} /Prev ${prev} ${trailer} >>\nstartxref\n${pos}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

/** An object stream (/Type /ObjStm) holding the given objects (bodies only, no streams). */
export function objectStream(num: number, members: { num: number; body: string }[]): FixtureStreamObject {
  let header = '';
  let body = '';
  for (const m of members) {
    header += `${m.num} ${body.length} `;
    body += `${m.body}\n`;
  }
  const data = deflateSync(Buffer.from(header + body, 'latin1'));
  return { num, dict: `/Type /ObjStm /N ${members.length} /First ${header.length} /Filter /FlateDecode`, stream: data };
}

/** An xref stream object with /W [1 4 2]; rows are [type, field2, field3] for objects from 0 up. */
export function xrefStreamObject(
  num: number,
  rows: Map<number, [number, number, number]>,
  dictExtra: string,
): FixtureStreamObject {
  const nums = [...rows.keys()].sort((a, b) => a - b);
  const index: number[] = [];
  const chunks: Buffer[] = [];
  for (const n of nums) {
    const last = index.length ? index[index.length - 2]! + index[index.length - 1]! : -1;
    if (n === last) index[index.length - 1]!++;
    else index.push(n, 1);
    const [t, f2, f3] = rows.get(n)!;
    const row = Buffer.alloc(7);
    row.writeUInt8(t, 0);
    row.writeUInt32BE(f2, 1);
    row.writeUInt16BE(f3, 5);
    chunks.push(row);
  }
  const data = deflateSync(Buffer.concat(chunks));
  return {
    num,
    dict: `/Type /XRef /W [1 4 2] /Index [${index.join(' ')}] /Filter /FlateDecode ${dictExtra}`,
    stream: data,
  };
}

/**
 * A hybrid-reference file (as written by MS Word): the classic table lists the catalog, the page
 * tree root and the object stream; the pages themselves are only in the /XRefStm stream.
 */
export function makeHybridPdf(pageCount = 3): Buffer {
  const pages = Array.from({ length: pageCount }, (_, i) => ({
    num: 10 + i,
    body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Rotate ${(i % 4) * 90} >>`,
  }));
  const head = Buffer.from('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  const direct: FixtureObject[] = [
    { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { num: 2, body: `<< /Type /Pages /Kids [${pages.map((p) => `${p.num} 0 R`).join(' ')}] /Count ${pageCount} >>` },
    objectStream(3, pages),
  ];
  const parts: Buffer[] = [head];
  let pos = head.length;
  const offsets = new Map<number, [number, number]>();
  for (const o of direct) {
    offsets.set(o.num, [pos, 0]);
    const b = objectBytes(o);
    parts.push(b);
    pos += b.length;
  }
  const size = 10 + pageCount + 1;
  const xrefNum = 10 + pageCount;
  const rows = new Map<number, [number, number, number]>();
  for (const [n, [off]] of offsets) rows.set(n, [1, off, 0]);
  pages.forEach((p, i) => rows.set(p.num, [2, 3, i]));
  rows.set(xrefNum, [1, pos, 0]);
  const xrefStmOffset = pos;
  const xs = objectBytes(xrefStreamObject(xrefNum, rows, `/Size ${size}`));
  parts.push(xs);
  pos += xs.length;
  offsets.set(xrefNum, [xrefStmOffset, 0]);
  parts.push(
    Buffer.from(
      xrefTable(offsets, true) +
        `trailer\n<< /Size ${size} /Root 1 0 R /XRefStm ${xrefStmOffset} >>\nstartxref\n${pos}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

/** Ready-made documents for tests anywhere (pdf/, server/, cli/). Each call builds a fresh Buffer. */
export const samples = {
  /** 2 Letter pages; an empty signature field "Signature1" on page 1 at user [72 72 272 122]. */
  emptySignatureField: (): Buffer =>
    makePdf({ pages: 2, signatureFields: [{ name: 'Signature1', page: 1, rect: [72, 72, 272, 122] }] }),
  /** 1 page; "Signer1" already signed (has /V, fake CMS) and "Signer2" still empty. */
  signedField: (): Buffer =>
    makePdf({
      signatureFields: [
        { name: 'Signer1', rect: [72, 72, 272, 122], signed: true },
        { name: 'Signer2', rect: [300, 72, 500, 122] },
      ],
    }),
  /** Certified with DocMDP level `p` (1 forbids any further signature). */
  certified: (p: 1 | 2 | 3 = 1): Buffer =>
    makePdf({ docMdp: p, signatureFields: [{ name: 'Certification', signed: true }] }),
  /** 2 pages plus one incremental update that rotates page 1 by 90 degrees: 2 revisions. */
  incrementallyUpdated: (): Buffer =>
    appendUpdate(makePdf({ pages: 2 }), [
      { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate 90 >>' },
    ]),
  /** 4 pages: Letter, A4 rotated 90, landscape rotated 180 with a CropBox, offset MediaBox rotated 270. */
  mixedGeometry: (): Buffer =>
    makePdf({
      pages: [
        { text: 'Letter' },
        { mediaBox: [0, 0, 595, 842], rotate: 90, text: 'A4 rotated 90' },
        { mediaBox: [0, 0, 842, 595], cropBox: [21, 21, 821, 574], rotate: 180, text: 'cropped' },
        { mediaBox: [-100, -100, 512, 692], rotate: 270, text: 'offset' },
      ],
    }),
  /** 3 pages, everything in object streams, xref stream (needs qpdf). */
  objectStreams: (): Buffer => withObjectStreams(makePdf({ pages: 3 })),
  /** 3 pages, linearized (needs qpdf). */
  linearized: (): Buffer => linearize(makePdf({ pages: 3 })),
  /** Classic table plus /XRefStm, 3 pages. */
  hybrid: (): Buffer => makeHybridPdf(3),
  /** AES-256 with user password "user" (needs qpdf). */
  encrypted: (): Buffer => encrypt(makePdf({ pages: 1 })),
};

// ---------------------------------------------------------------- reference tools (qpdf, poppler, gs)

export function hasTool(name: string): boolean {
  return (
    spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0 ||
    spawnSync(name, ['-v'], { stdio: 'ignore' }).status === 0
  );
}

function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-pdf-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs qpdf on `pdf` with `args` and returns the output file (exit code 3, "warnings", is accepted). */
export function qpdf(pdf: Buffer, args: string[]): Buffer {
  return withTempDir((dir) => {
    const input = join(dir, 'in.pdf');
    const output = join(dir, 'out.pdf');
    writeFileSync(input, pdf);
    const r = spawnSync('qpdf', [...args, input, output], { encoding: 'utf8' });
    if (r.status !== 0 && r.status !== 3) throw new Error(`qpdf ${args.join(' ')} failed: ${r.stderr}`);
    return readFileSync(output);
  });
}

export const withObjectStreams = (pdf: Buffer): Buffer => qpdf(pdf, ['--object-streams=generate']);
export const linearize = (pdf: Buffer): Buffer => qpdf(pdf, ['--linearize']);
export const encrypt = (pdf: Buffer, user = 'user', owner = 'owner'): Buffer =>
  qpdf(pdf, ['--encrypt', user, owner, '256', '--']);

/** Runs a reference tool on `pdf` (written to a temp file) and returns status and output. */
export function runOnFile(
  tool: string,
  args: string[],
  pdf: Buffer,
): { status: number | null; stdout: string; stderr: string } {
  return withTempDir((dir) => {
    const file = join(dir, 'in.pdf');
    writeFileSync(file, pdf);
    const r = spawnSync(tool, [...args, file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  });
}

/** `qpdf --show-npages`, or undefined when qpdf cannot read the file. */
export function qpdfPageCount(pdf: Buffer): number | undefined {
  const r = runOnFile('qpdf', ['--show-npages'], pdf);
  const n = Number(r.stdout.trim());
  return (r.status === 0 || r.status === 3) && Number.isInteger(n) ? n : undefined;
}

/** `qpdf --check`: ok = no errors and no warnings; readable = at most warnings (exit code 3). */
export function qpdfCheck(pdf: Buffer): { ok: boolean; readable: boolean; output: string } {
  const r = runOnFile('qpdf', ['--check'], pdf);
  return { ok: r.status === 0, readable: r.status === 0 || r.status === 3, output: r.stdout + r.stderr };
}

export interface PdfinfoPage {
  mediaBox: FixtureBox;
  cropBox: FixtureBox;
  rotate: number;
}

/** Per-page boxes and rotation as poppler's `pdfinfo -box` reports them. */
export function pdfinfoPages(pdf: Buffer, pageCount: number): PdfinfoPage[] {
  const r = runOnFile('pdfinfo', ['-box', '-f', '1', '-l', String(pageCount)], pdf);
  const pages: PdfinfoPage[] = Array.from({ length: pageCount }, () => ({
    mediaBox: [0, 0, 0, 0],
    cropBox: [0, 0, 0, 0],
    rotate: 0,
  }));
  for (const m of r.stdout.matchAll(/^Page\s+(\d+)\s+(MediaBox|CropBox|rot):\s+(.*)$/gm)) {
    const page = pages[Number(m[1]) - 1];
    if (!page) continue;
    const nums = m[3]!.trim().split(/\s+/).map(Number);
    if (m[2] === 'rot') page.rotate = nums[0]!;
    else if (m[2] === 'MediaBox') page.mediaBox = nums as FixtureBox;
    else page.cropBox = nums as FixtureBox;
  }
  return pages;
}

/** Renders the visible (CropBox) area of one page with poppler's pdftoppm at 72 dpi (1 pixel = 1 point), 8-bit gray. */
export function renderPageGray(pdf: Buffer, page = 1): { width: number; height: number; pixels: Uint8Array } {
  return withTempDir((dir) => {
    const file = join(dir, 'in.pdf');
    writeFileSync(file, pdf);
    execFileSync(
      'pdftoppm',
      ['-r', '72', '-gray', '-cropbox', '-f', String(page), '-l', String(page), '-singlefile', file, join(dir, 'out')],
      { stdio: 'ignore' },
    );
    const pgm = readFileSync(join(dir, 'out.pgm'));
    const m = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.toString('latin1', 0, 64));
    if (!m) throw new Error('pdftoppm did not write a PGM');
    const width = Number(m[1]);
    const height = Number(m[2]);
    return { width, height, pixels: pgm.subarray(m[0].length, m[0].length + width * height) };
  });
}

/** Bounding box {x, y, width, height} (top-left origin) of the dark pixels of a gray image. */
export function darkPixelBounds(img: {
  width: number;
  height: number;
  pixels: Uint8Array;
}): { x: number; y: number; width: number; height: number } | undefined {
  let minX = Infinity,
    minY = Infinity,
    maxX = -1,
    maxY = -1;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      if (img.pixels[y * img.width + x]! < 128) {
        minX = Math.min(minX, x);
        maxX = Math.max(maxX, x);
        minY = Math.min(minY, y);
        maxY = Math.max(maxY, y);
      }
    }
  }
  return maxX < 0 ? undefined : { x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1 };
}

/** Runs a PostScript program through ghostscript's pdfwrite device. */
export function ghostscriptPdf(postscript: string, extraArgs: string[] = []): Buffer {
  return withTempDir((dir) => {
    const ps = join(dir, 'in.ps');
    const out = join(dir, 'out.pdf');
    writeFileSync(ps, postscript);
    execFileSync(
      'gs',
      ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', ...extraArgs, `-sOutputFile=${out}`, ps],
      { stdio: 'ignore' },
    );
    return readFileSync(out);
  });
}

// ---------------------------------------------------------------- hostile and broken files

export const hostile = {
  /** The catalog holds `depth` nested arrays: "[[[[...]]]]". */
  deepNesting(depth = 100_000): Buffer {
    return makePdf({ catalogExtra: `/Deep ${'['.repeat(depth)}${']'.repeat(depth)}` });
  },

  /**
   * An xref-stream file whose catalog and page tree sit in an object stream that inflates to more
   * than `gib` GiB. Built from independent deflate blocks of 16 MiB of zeros (each flushed with
   * Z_FULL_FLUSH, so they can be concatenated): cheap to make, about 1 MiB per GiB. The adler32
   * checksum is left as zero: a reader that honours its size limit stops long before checking it.
   */
  inflateBomb(gib = 1.1): Buffer {
    const members = [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>' },
    ];
    let header = '';
    let body = '';
    for (const m of members) {
      header += `${m.num} ${body.length} `;
      body += `${m.body}\n`;
    }
    const full = { finishFlush: zlibConstants.Z_FULL_FLUSH };
    const chunk = deflateRawSync(Buffer.alloc(16 * 1024 * 1024, 0x20), full);
    const chunks = Math.ceil((gib * 1024) / 16);
    const data = Buffer.concat([
      Buffer.from([0x78, 0x9c]),
      deflateRawSync(Buffer.from(header + body, 'latin1'), full),
      ...Array.from({ length: chunks }, () => chunk),
      deflateRawSync(Buffer.alloc(0)),
      Buffer.alloc(4),
    ]);
    const head = Buffer.from('%PDF-1.5\n', 'latin1');
    const objStm = objectBytes({
      num: 4,
      dict: `/Type /ObjStm /N 3 /First ${header.length} /Filter /FlateDecode`,
      stream: data,
    });
    const xrefPos = head.length + objStm.length;
    const rows = new Map<number, [number, number, number]>([
      [0, [0, 0, 65535]],
      [1, [2, 4, 0]],
      [2, [2, 4, 1]],
      [3, [2, 4, 2]],
      [4, [1, head.length, 0]],
      [5, [1, xrefPos, 0]],
    ]);
    const xref = objectBytes(xrefStreamObject(5, rows, '/Size 6 /Root 1 0 R'));
    return Buffer.concat([head, objStm, xref, Buffer.from(`startxref\n${xrefPos}\n%%EOF\n`)]);
  },

  /** A flat page tree with `count` pages and an honest /Count. */
  manyPages(count = 100_000): Buffer {
    return makePdf({ pages: count });
  },

  /** `count` pages, but the root /Count claims 1. */
  lyingCount(count = 100_000): Buffer {
    return makePdf({ pages: count, countOverride: 1 });
  },

  /** The root /Pages lists itself among its /Kids. */
  kidsCycle(): Buffer {
    return buildPdf(
      [
        { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
        { num: 2, body: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>' },
        { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>' },
        { num: 4, body: '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>' },
      ],
      '/Root 1 0 R',
    );
  },

  /** Two xref sections whose /Prev entries point at each other. Content: 2 pages. */
  prevCycle(): Buffer {
    const placeholder = '/Prev 0000000000';
    const base = makePdf({ pages: 2, trailerExtra: placeholder });
    const updated = appendUpdate(base, [
      { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate 90 >>' },
    ]);
    const lastXref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(updated.toString('latin1'))![1]);
    const text = updated.toString('latin1').replace(placeholder, `/Prev ${String(lastXref).padStart(10, '0')}`);
    return Buffer.from(text, 'latin1');
  },

  /** A valid 3-page file whose startxref points into the middle of an object. */
  brokenStartxref(): Buffer {
    const pdf = makePdf({ pages: 3 }).toString('latin1');
    return Buffer.from(pdf.replace(/startxref\s+\d+/, 'startxref\n42'), 'latin1');
  },

  /** A valid 3-page file whose xref table offsets are all shifted by 7 bytes. */
  wrongXrefOffsets(): Buffer {
    const pdf = makePdf({ pages: 3 }).toString('latin1');
    return Buffer.from(
      pdf.replace(/^(\d{10}) 00000 n/gm, (_m, off: string) => `${String(Number(off) + 7).padStart(10, '0')} 00000 n`),
      'latin1',
    );
  },

  /** The first `fraction` of a valid file. */
  truncated(pdf: Buffer, fraction: number): Buffer {
    return pdf.subarray(0, Math.floor(pdf.length * fraction));
  },

  notAPdf(): Buffer {
    return Buffer.from('PK\x03\x04 this is a zip file, not a PDF\n'.repeat(20), 'latin1');
  },
};

/**
 * A hybrid-reference file like makeHybridPdf, with an AcroForm and one empty signature field
 * `fieldName` on page 1 (user rect `rect`): catalog, field and page tree root in the classic
 * table, the pages (whose /Annots list the field) only in the /XRefStm stream.
 */
export function makeHybridPdfWithSignatureField(
  pageCount = 3,
  fieldName = 'Witness',
  rect: FixtureBox = [300, 100, 500, 150],
): Buffer {
  const fieldNum = 20;
  const pages = Array.from({ length: pageCount }, (_, i) => ({
    num: 10 + i,
    body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842]${i === 0 ? ` /Annots [${fieldNum} 0 R]` : ''} >>`,
  }));
  const head = Buffer.from('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  const direct: FixtureObject[] = [
    { num: 1, body: `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${fieldNum} 0 R] /SigFlags 1 >> >>` },
    { num: 2, body: `<< /Type /Pages /Kids [${pages.map((p) => `${p.num} 0 R`).join(' ')}] /Count ${pageCount} >>` },
    objectStream(3, pages),
    {
      num: fieldNum,
      body: `<< /FT /Sig /T (${fieldName}) /Type /Annot /Subtype /Widget /Rect [${rect.join(' ')}] /F 4 /P 10 0 R >>`,
    },
  ];
  const parts: Buffer[] = [head];
  let pos = head.length;
  const offsets = new Map<number, [number, number]>();
  for (const o of direct) {
    offsets.set(o.num, [pos, 0]);
    const b = objectBytes(o);
    parts.push(b);
    pos += b.length;
  }
  const xrefNum = fieldNum + 1;
  const size = xrefNum + 1;
  const rows = new Map<number, [number, number, number]>();
  for (const [n, [off]] of offsets) rows.set(n, [1, off, 0]);
  pages.forEach((p, i) => rows.set(p.num, [2, 3, i]));
  rows.set(xrefNum, [1, pos, 0]);
  const xrefStmOffset = pos;
  const xs = objectBytes(xrefStreamObject(xrefNum, rows, `/Size ${size}`));
  parts.push(xs);
  pos += xs.length;
  offsets.set(xrefNum, [xrefStmOffset, 0]);
  parts.push(
    Buffer.from(
      xrefTable(offsets, true) +
        `trailer\n<< /Size ${size} /Root 1 0 R /XRefStm ${xrefStmOffset} >>\nstartxref\n${pos}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}
