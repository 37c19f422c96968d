/** The whole corpus, for the pdf, CLI and API tests. */
import { BENIGN_CASES } from './benign.js';
import { STRUCTURE_CASES } from './cases-structure.js';
import { VISUAL_CASES } from './cases-visual.js';
import type { ShadowCase } from './kit.js';
import { PERMISSION_CASES } from './cases-permissions.js';

export const ATTACK_CASES: readonly ShadowCase[] = [...VISUAL_CASES, ...STRUCTURE_CASES, ...PERMISSION_CASES];
export { BENIGN_CASES };
export {
  shadowKeys,
  shadowOriginal,
  shadowPrepared,
  shadowPreparedCertified,
  SHADOW_LAYOUT,
  type ShadowKeys,
} from './document.js';
export type { BenignCase, CaseContext, ShadowCase } from './kit.js';
