/**
 * What someone with the completed PDF (or the data directory) does to change a signed value afterwards: ONE
 * incremental revision that rewrites a form field, as a form filler would (issue 26, points 1 and 2). Every
 * earlier byte stays, so each signature still verifies over its own revision; only the field locks (FieldMDP)
 * tell a validator that the change is not allowed.
 */
import { PdfArray, PdfDict, PdfRef } from '../../pdf/objects.js';
import { PdfReader } from '../../pdf/document.js';
import { helveticaFont, resources } from '../../pdf/write/appearance.js';
import { readFormTree } from '../../pdf/write/form.js';
import { IncrementalUpdate } from '../../pdf/write/incremental.js';
import { dict, makeStream, name } from '../../pdf/write/serialize.js';
import { textString } from '../../pdf/write/text.js';

export type Tamper = 'value only' | 'value and appearance';

/**
 * Sets the text field `field` to `value` in a new revision: only /V (viewers that regenerate appearances show
 * it), or /V and an opaque appearance drawing `value` on a white box over the whole widget (what every viewer
 * shows, covering whatever the page has under it).
 */
export function rewriteTextField(pdf: Buffer, field: string, value: string, how: Tamper): Buffer {
  const update = new IncrementalUpdate(PdfReader.open(pdf));
  const target = readFormTree(update).fields.find((f) => f.name === field);
  if (!target?.ref) throw new Error(`field-tamper: no field "${field}" with an object of its own`);
  const fieldDict = update.editDict(target.ref);
  fieldDict.set('V', textString(value));
  if (how === 'value and appearance') {
    for (const widget of target.widgets) {
      const d = widget.ref && widget.ref.num !== target.ref.num ? update.editDict(widget.ref) : fieldDict;
      d.set('AP', dict({ N: opaqueText(update, widgetSize(update, d), value) }));
    }
  }
  return update.write().bytes;
}

function widgetSize(update: IncrementalUpdate, widget: PdfDict): { w: number; h: number } {
  const rect = update.resolve(widget.get('Rect'));
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = rect instanceof PdfArray ? rect.items.map((n) => Number(n)) : [];
  return { w: Math.abs(x1 - x0), h: Math.abs(y1 - y0) };
}

function opaqueText(update: IncrementalUpdate, { w, h }: { w: number; h: number }, text: string): PdfRef {
  const size = Math.max(6, Math.min(14, h - 4));
  const draw = `q 1 g 0 0 ${w} ${h} re f Q BT /Helv ${size} Tf 0 g 2 ${(h - size) / 2 + 1} Td (${text}) Tj ET`;
  const d = dict({
    Type: name('XObject'),
    Subtype: name('Form'),
    BBox: new PdfArray([0, 0, w, h]),
    Resources: resources({ Helv: update.add(helveticaFont()) }),
  });
  return update.add(makeStream(d, Buffer.from(draw, 'latin1')));
}
