/**
 * The main-process side of window.moharDesktopBatch (common/desktop-batch.ts): the batch page's calls, each
 * refused unless it comes from the top frame of a trusted Mohar page (as the bridge's, bridge-ipc.ts). The batch
 * and the doctor are Electron-free (main/signer); this file only routes.
 */
import {
  DESKTOP_BATCH_CHANNELS,
  type BatchItem,
  type BatchReport,
  type BatchSignRequest,
} from '../../common/desktop-batch.js';
import type { BridgeResult } from '../../common/desktop-bridge.js';
import type { DoctorReport } from '../../common/desktop-doctor.js';
import type { SigningBatch } from '../signer/index.js';
import { UNTRUSTED_PAGE, type IpcMainLike, type BridgeIpcEvent } from './bridge-ipc.js';
import { isTrustedSender } from './trust.js';

export interface BatchServices {
  readonly batch: Pick<SigningBatch, 'refresh' | 'sign' | 'clear' | 'items'>;
  doctor(): Promise<DoctorReport>;
}

async function value<T>(work: () => Promise<T>): Promise<BridgeResult<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    const code =
      error instanceof Error && 'code' in error && (error as { code: unknown }).code === 'busy'
        ? 'busy'
        : 'signing_failed';
    return { ok: false, error: { code, message: error instanceof Error ? error.message : String(error) } };
  }
}

function isSignRequest(request: unknown): request is BatchSignRequest {
  const r = request as Partial<BatchSignRequest> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.slotId === 'string' &&
    r.slotId.length <= 200 &&
    typeof r.certificateId === 'string' &&
    r.certificateId.length <= 200
  );
}

export function registerBatchIpc(ipc: IpcMainLike, services: BatchServices, origins: readonly string[]): () => void {
  const trusted = (event: BridgeIpcEvent): boolean =>
    isTrustedSender(
      event.senderFrame ? { url: event.senderFrame.url, isMainFrame: event.senderFrame.parent === null } : null,
      origins,
    );
  ipc.handle(DESKTOP_BATCH_CHANNELS.list, (event): Promise<BridgeResult<BatchItem[]>> | BridgeResult<never> =>
    trusted(event) ? value(() => services.batch.refresh()) : UNTRUSTED_PAGE,
  );
  ipc.handle(
    DESKTOP_BATCH_CHANNELS.sign,
    (event, request): Promise<BridgeResult<BatchReport>> | BridgeResult<never> => {
      if (!trusted(event)) return UNTRUSTED_PAGE;
      if (!isSignRequest(request)) {
        return { ok: false, error: { code: 'invalid_request', message: 'Choose a token and a certificate.' } };
      }
      return value(() => services.batch.sign({ slotId: request.slotId, certificateId: request.certificateId }));
    },
  );
  ipc.handle(DESKTOP_BATCH_CHANNELS.clear, (event): Promise<BridgeResult<BatchItem[]>> | BridgeResult<never> =>
    trusted(event)
      ? value(async () => {
          services.batch.clear();
          return services.batch.items();
        })
      : UNTRUSTED_PAGE,
  );
  ipc.handle(DESKTOP_BATCH_CHANNELS.doctor, (event): Promise<BridgeResult<DoctorReport>> | BridgeResult<never> =>
    trusted(event) ? value(() => services.doctor()) : UNTRUSTED_PAGE,
  );
  return () => {
    for (const channel of Object.values(DESKTOP_BATCH_CHANNELS)) ipc.removeHandler(channel);
  };
}
