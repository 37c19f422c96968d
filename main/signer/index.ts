/**
 * main/signer: the desktop signer service behind the typed bridge (common/desktop-bridge.ts). Node only,
 * no Electron: it may import native/, pdf/ and common/ (ESLint enforces it).
 *
 *   const signer = createDesktopSigner({ modulePaths, pinPrompt });
 *   await signer.listTokens();                       // { ok: true, value: TokenInfo[] }
 *   const stop = signer.watchTokens((tokens) => …);  // after every insert / removal
 *   await signer.signPrepared({ pdfBase64, fieldName, slotId, certificateId, documentName });
 *   await signer.close();
 */
export { createDesktopSigner, type DesktopSigner, type DesktopSignerOptions } from './desktop-signer.js';
export type { PinPrompt, PinRequest } from './pin-prompt.js';
export { SigningBatch } from './batch.js';
export { fetchHttp, type BatchHttp } from './batch-fetch.js';
export { diagnose, type DoctorInput, type DoctorToken } from './doctor.js';
export { runDoctor, serverTime, type DoctorRunOptions } from './doctor-run.js';
export { checkMiddleware, type MiddlewareStatus } from './middleware.js';
