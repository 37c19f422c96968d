import { readFileSync } from 'node:fs';
import { judgeAppendedRevision, verifyPdf } from '../../../../pdf/verify/index.js';
import { shadowPrepared } from './document.js';
import { VISUAL_CASES } from './cases-visual.js';
import { STRUCTURE_CASES } from './cases-structure.js';
import { BENIGN_CASES } from './benign.js';
const p = shadowPrepared();
let i = 0;
for (const c of [...VISUAL_CASES, ...STRUCTURE_CASES, ...BENIGN_CASES]) {
  i++;
  const bytes = readFileSync(`/tmp/a2/case${i}.pdf`);
  const fill = 'fillable' in c && c.fillable ? c.fillable({ fillableField: p.fillableField } as never) : undefined;
  const j = judgeAppendedRevision(p.bytes, bytes, { signingField: p.signingField, allowLtv: true, ...(fill ? { fillableFields: fill } : {}) });
  let v = '';
  try { const r = verifyPdf(bytes); v = `valid=${r.valid} ` + r.signatures.map((s) => `${s.changesAfter} probs=${s.problems.join('/')}`).join(';'); } catch (e) { v = 'THROW ' + (e as Error).message; }
  console.log(`${i} ${c.name}\n   judge: ${j.accepted} ${j.problem}\n   verify: ${v}`);
}
