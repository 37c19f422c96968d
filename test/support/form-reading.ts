/** Reading a PDF's form back for assertions: the /V of each field, and the images each widget's appearance draws. */
import { PdfReader } from '../../pdf/document.js';
import { PdfDict, PdfName, PdfStream, PdfString } from '../../pdf/objects.js';
import { readFormTree } from '../../pdf/write/form.js';
import { IncrementalUpdate } from '../../pdf/write/incremental.js';

/** The /V of every form field, by fully qualified name (text as text, names as their name). */
export function formValues(pdf: Uint8Array): Record<string, string> {
  const update = new IncrementalUpdate(PdfReader.open(pdf));
  const out: Record<string, string> = {};
  for (const f of readFormTree(update).fields) {
    const v = update.resolve(f.dict.get('V'));
    if (v instanceof PdfString) out[f.name] = v.toText();
    else if (v instanceof PdfName) out[f.name] = v.name;
  }
  return out;
}

/**
 * Per widget of the form fields whose name contains `part`: the images its normal appearance draws (size in pixels).
 */
export function appearanceImages(pdf: Uint8Array, part: string): { width: number; height: number }[][] {
  const update = new IncrementalUpdate(PdfReader.open(pdf));
  const out: { width: number; height: number }[][] = [];
  for (const field of readFormTree(update).fields.filter((f) => f.name.includes(part))) {
    for (const widget of field.widgets) {
      const ap = update.resolve(widget.dict.get('AP'));
      const normal = ap instanceof PdfDict ? update.resolve(ap.get('N')) : null;
      const resources = normal instanceof PdfStream ? update.resolve(normal.dict.get('Resources')) : null;
      const xobjects = resources instanceof PdfDict ? update.resolve(resources.get('XObject')) : null;
      const images: { width: number; height: number }[] = [];
      if (xobjects instanceof PdfDict) {
        for (const key of xobjects.keys()) {
          const x = update.resolve(xobjects.get(key));
          const subtype = x instanceof PdfStream ? update.resolve(x.dict.get('Subtype')) : null;
          if (x instanceof PdfStream && subtype instanceof PdfName && subtype.name === 'Image') {
            images.push({
              width: Number(update.resolve(x.dict.get('Width'))),
              height: Number(update.resolve(x.dict.get('Height'))),
            });
          }
        }
      }
      out.push(images);
    }
  }
  return out;
}
