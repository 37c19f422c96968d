/**
 * What a standard signing tool does to document metadata beside its signature (issue 26 point 7), built in
 * code: pyHanko's `sign addsig` on a PDF 1.4 with an /Info dictionary and an XMP stream rewrites both in
 * place and adds catalog /Version /1.7; on a file without them it adds a new /Info (and Acrobat a new XMP
 * stream). The contract is the shadow corpus's document (so the corpus's revision builder finds its
 * targets), saved by its producer as PDF 1.4 with an XMP stream (object 11) and an /Info (object 12).
 */
import { PdfName, PdfRef, PdfString } from '../../../pdf/objects.js';
import type { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { dict, makeStream, name } from '../../../pdf/write/serialize.js';
import { appendUpdate } from '../pdf-fixtures.js';
import { shadowOriginal } from './document.js';
import type { Targets } from './revision.js';

export const XMP_NUM = 11;
export const INFO_NUM = 12;

/** An XMP packet as producers write it (the packet wrapper's processing instructions included). */
export function xmpPacket(producer: string, modified: string): string {
  return [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    `<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" pdf:Producer="${producer}" xmp:ModifyDate="${modified}"/>`,
    '</rdf:RDF>',
    '</x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
}

/** The sender's PDF: the shadow contract as PDF 1.4, with an XMP stream and an /Info added by its producer. */
export function contractWithMetadata(): Buffer {
  // Same length as "%PDF-1.7": every offset stays right.
  const original = Buffer.from(shadowOriginal().toString('latin1').replace('%PDF-1.7', '%PDF-1.4'), 'latin1');
  const catalog = /\n1 0 obj\n(<<.*>>)\nendobj/.exec(original.toString('latin1'))![1]!;
  return appendUpdate(
    original,
    [
      { num: 1, body: `${catalog.slice(0, -2)} /Metadata ${XMP_NUM} 0 R >>` },
      {
        num: XMP_NUM,
        dict: '/Type /Metadata /Subtype /XML',
        stream: Buffer.from(xmpPacket('Contract Writer 2.1', '2026-11-20T10:00:00Z'), 'utf8'),
      },
      {
        num: INFO_NUM,
        body: '<< /Title (Supply contract) /Producer (Contract Writer 2.1) /ModDate (D:20261120100000Z) >>',
      },
    ],
    `/Info ${INFO_NUM} 0 R`,
  );
}

/** The XMP stream a tool writes; `xml` replaces the packet (malformed cases). */
export function xmpStream(xml = xmpPacket('pyHanko 0.25.1', '2026-11-29T06:04:16+00:00'), compress = false) {
  return makeStream(dict({ Type: name('Metadata'), Subtype: name('XML') }), Buffer.from(xml, 'utf8'), { compress });
}

/** The /Info a tool writes: the old entries kept, /Producer and /ModDate updated. */
export const infoDict = () =>
  dict({
    Title: new PdfString(Buffer.from('Supply contract', 'latin1'), false),
    Producer: new PdfString(Buffer.from('Contract Writer 2.1; pyHanko 0.25.1', 'latin1'), false),
    ModDate: new PdfString(Buffer.from('D:20261129060416Z', 'latin1'), false),
  });

/** The contract's /Info and XMP stream, wherever a rewrite of the file (qpdf) put them. */
const infoOf = (t: Targets): PdfRef => t.reader.trailer.get('Info') as PdfRef;
export const xmpOf = (t: Targets): PdfRef => t.reader.catalog.get('Metadata') as PdfRef;

export const rewriteInfo = (update: IncrementalUpdate, t: Targets): void => update.set(infoOf(t), infoDict());
export const rewriteXmp = (update: IncrementalUpdate, t: Targets): void => update.set(xmpOf(t), xmpStream());
export const addVersion = (update: IncrementalUpdate, t: Targets): void =>
  update.editDict(t.catalog).set('Version', new PdfName('1.7'));

/** pyHanko's metadata update on the contract: /Info and XMP rewritten in place, catalog /Version /1.7 added. */
export function pyHankoMetadata(update: IncrementalUpdate, t: Targets): void {
  rewriteInfo(update, t);
  rewriteXmp(update, t);
  addVersion(update, t);
}

/**
 * A trailer /Info naming a new object. IncrementalUpdate copies the previous trailer's entries, so the
 * revision's trailer gets it through the reader it extends (the builder's own, thrown away afterwards).
 */
export function newInfo(update: IncrementalUpdate, t: Targets): PdfRef {
  const info = update.add(infoDict());
  t.reader.trailer.set('Info', info);
  return info;
}
