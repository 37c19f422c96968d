/**
 * Batch signing in Mohar Desktop: several DSC signing links handed over (deep links or a list), their documents
 * fetched and shown (name, SHA-256), ONE PIN for the token, one logged-in PKCS#11 session for the whole batch,
 * and a result per document. Shared by main/ (the service), the preload and renderer/ (the batch page); plain
 * JSON only, failures as values (see desktop-bridge.ts for why).
 */
import type { BridgeResult } from './desktop-bridge.js';
import type { DoctorReport } from './desktop-doctor.js';

/** The global the preload defines beside window.moharDesktop (kept apart: the signing page's contract is unchanged). */
export const DESKTOP_BATCH_GLOBAL = 'moharDesktopBatch' as const;
export const DESKTOP_BATCH_VERSION = 1 as const;

/** IPC channels (invoke) of the batch page; the sender checks of desktop-bridge.ts apply. */
export const DESKTOP_BATCH_CHANNELS = {
  /** The links waiting and their documents, fetched again. */
  list: 'mohar:batch:list',
  /** Sign every ready item with one token and certificate (one PIN window). */
  sign: 'mohar:batch:sign',
  /** Forget the finished or failed items. */
  clear: 'mohar:batch:clear',
  /** Token doctor findings (main/signer/doctor.ts). */
  doctor: 'mohar:tokens:doctor',
} as const;

/**
 * ready: fetched, waiting for the PIN. signed: uploaded and accepted. failed: tried, refused (reason in words).
 * skipped: not tried (not a DSC signature for this signer, nothing to sign, cancelled, or the batch stopped).
 */
export type BatchItemState = 'ready' | 'signed' | 'failed' | 'skipped';

export interface BatchItem {
  /** Stable within the batch: the link and the document id. */
  id: string;
  signingUrl: string;
  envelopeTitle: string;
  /** The document's file name as the server gives it (display as plain text). */
  documentName: string;
  /** SHA-256 (hex) of the prepared bytes that will be signed; '' when they could not be fetched. */
  documentSha256: string;
  state: BatchItemState;
  /**
   * Why it failed or was skipped, in plain words (English); the page shows its own sentence, in its language, for
   * the desktop codes it knows (dsc.error.*).
   */
  reason: string | null;
  /** A stable code for the reason (e.g. 'envelope_closed', 'pin_cancelled', 'upload_refused'). */
  reasonCode: string | null;
  /** The envelope's status after the upload (signed items only). */
  envelopeStatus: string | null;
}

export interface BatchSignRequest {
  slotId: string;
  certificateId: string;
}

export interface BatchReport {
  items: BatchItem[];
  signed: number;
  failed: number;
  skipped: number;
  /** Set when the whole batch stopped before any signature (wrong PIN, locked, cancelled, token gone). */
  stoppedBy: { code: string; message: string; triesLeft?: number | null } | null;
}

export interface MoharDesktopBatch {
  readonly version: typeof DESKTOP_BATCH_VERSION;
  list(): Promise<BridgeResult<BatchItem[]>>;
  sign(request: BatchSignRequest): Promise<BridgeResult<BatchReport>>;
  clear(): Promise<BridgeResult<BatchItem[]>>;
  /** The token doctor's findings (drivers, PIN state, certificates, chains, clock). */
  doctor(): Promise<BridgeResult<DoctorReport>>;
}
