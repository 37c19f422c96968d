/**
 * Batch signing: the signing links handed to the desktop (deep links or a list), each link's DSC documents
 * fetched (name, SHA-256 of the prepared bytes), then ONE PIN for the chosen token and certificate, one logged-in
 * PKCS#11 session for every signature (native's beginSession), C_Logout at the end whatever happened, and a result
 * per document. One document refused by the server (voided meanwhile, already signed elsewhere) fails alone;
 * a wrong or locked PIN, a cancel or a missing token stops the batch before any signature.
 */
import { createHash } from 'node:crypto';
import type { BatchItem, BatchReport, BatchSignRequest } from '../../common/desktop-batch.js';
import { buildChain, type TokenSession } from '../../native/index.js';
import { signPades, type SignatureProvider } from '../../pdf/index.js';
import { signerApiOf, uploadSigned, type BatchHttp } from './batch-fetch.js';
import { linkEntries, reasonOf, type Entry } from './batch-entries.js';
import { DesktopFailure } from './outcome.js';
import type { PinPrompt } from './pin-prompt.js';
import { chooseCertificate, pinStop, type ChosenCertificate, type SigningSettings } from './batch-token.js';
import { selectorOf } from './token-set.js';

export interface BatchSettings extends Omit<SigningSettings, 'maxPdfBytes'> {
  readonly http: BatchHttp;
  readonly pinPrompt: PinPrompt;
}

export class SigningBatch {
  private readonly links: string[] = [];
  private entries: Entry[] = [];
  private running = false;

  constructor(private readonly settings: BatchSettings) {}

  /** Queues signing links (each once); returns the ones refused as not being signing links. */
  add(links: readonly string[]): string[] {
    const refused: string[] = [];
    for (const link of links) {
      const trimmed = link.trim();
      if (trimmed.length === 0) continue;
      if (signerApiOf(trimmed) === null) refused.push(trimmed);
      else if (!this.links.includes(trimmed)) this.links.push(trimmed);
    }
    return refused;
  }

  items(): BatchItem[] {
    return this.entries.map((e) => ({ ...e.item }));
  }

  /** Forgets the links whose documents are all signed, failed or skipped. */
  clear(): void {
    const open = new Set(this.entries.filter((e) => e.item.state === 'ready').map((e) => e.item.signingUrl));
    this.links.splice(0, this.links.length, ...this.links.filter((l) => open.has(l)));
    this.entries = this.entries.filter((e) => open.has(e.item.signingUrl));
  }

  /** Fetches what every link asks for now: each document ready (name, hash) or skipped with the reason. */
  async refresh(): Promise<BatchItem[]> {
    if (this.running) throw new DesktopFailure('busy', 'The batch is being signed.');
    const entries: Entry[] = [];
    for (const link of this.links) entries.push(...(await linkEntries(this.settings.http, link)));
    this.entries = entries;
    return this.items();
  }

  /** Signs every ready document with one PIN and one logged-in session; a report per document. */
  async sign(request: BatchSignRequest, signal?: AbortSignal): Promise<BatchReport> {
    if (this.running) throw new DesktopFailure('busy', 'The batch is already being signed.');
    this.running = true;
    try {
      const ready = this.entries.filter((e) => e.item.state === 'ready' && e.prepared !== null);
      if (ready.length === 0) return this.report(null);
      const stop = (code: string, message: string, triesLeft?: number | null): BatchReport => {
        for (const e of ready) {
          if (e.item.state === 'ready') e.item = { ...e.item, state: 'skipped', reason: message, reasonCode: code };
        }
        return this.report(triesLeft === undefined ? { code, message } : { code, message, triesLeft });
      };
      let chosen: ChosenCertificate;
      try {
        chosen = await chooseCertificate(this.settings, request);
      } catch (error) {
        const stopped = await pinStop(this.settings, request, error);
        return stop(stopped.code, stopped.message, stopped.triesLeft);
      }
      try {
        const documents = ready.map((e) => ({ name: e.item.documentName, sha256: e.item.documentSha256 }));
        let pin: string | null = await this.settings.pinPrompt.askPin({
          ...chosen.pinContext,
          documentName: `${documents.length} documents`,
          documentSha256: createHash('sha256')
            .update(documents.map((d) => `${d.sha256}  ${d.name}\n`).join(''))
            .digest('hex'),
          documents,
        });
        if (pin === null) return stop('pin_cancelled', 'Signing was cancelled; nothing was signed.');
        let session: TokenSession;
        try {
          session = await chosen.found.module.beginSession(selectorOf(chosen.found.token), pin);
        } catch (error) {
          const stopped = await pinStop(this.settings, request, error);
          return stop(stopped.code, stopped.message, stopped.triesLeft);
        } finally {
          pin = null; // its only use was C_Login
        }
        try {
          const chain = buildChain(chosen.certificate.der, chosen.pool);
          for (const entry of ready) {
            if (signal?.aborted) {
              entry.item = {
                ...entry.item,
                state: 'skipped',
                reason: 'The batch was stopped.',
                reasonCode: 'cancelled',
              };
              continue;
            }
            await this.signOne(entry, session, chosen.certificate, chain);
          }
        } finally {
          await session.end(); // C_Logout, on every path
        }
      } finally {
        chosen.release();
      }
      return this.report(null);
    } finally {
      this.running = false;
    }
  }

  private async signOne(
    entry: Entry,
    session: TokenSession,
    certificate: ChosenCertificate['certificate'],
    chain: readonly Uint8Array[],
  ): Promise<void> {
    const prepared = entry.prepared!;
    const provider: SignatureProvider = {
      certificate: certificate.der,
      chain,
      keyType: certificate.keyType,
      sign: async (data) =>
        (await session.sign({ certFingerprint: certificate.fingerprintSha256, data, now: this.settings.now() }))
          .signature,
    };
    try {
      const signingTime = this.settings.now();
      const signed = await signPades(prepared.bytes, provider, {
        level: this.settings.level,
        field: { name: prepared.fieldName },
        signingTime,
        timeZoneOffsetMinutes: -signingTime.getTimezoneOffset(),
        name: certificate.subjectCommonName ?? certificate.subject,
        ...(this.settings.timestamp
          ? { tsaUrl: this.settings.timestamp.tsaUrl, transport: this.settings.timestamp.transport }
          : {}),
      });
      const status = await uploadSigned(this.settings.http, entry.api, entry.documentId, Buffer.from(signed.bytes));
      entry.item = { ...entry.item, state: 'signed', reason: null, reasonCode: null, envelopeStatus: status };
      entry.prepared = null;
    } catch (error) {
      const { code, message } = reasonOf(error);
      entry.item = { ...entry.item, state: 'failed', reason: message, reasonCode: code };
    }
  }

  private report(stoppedBy: BatchReport['stoppedBy']): BatchReport {
    const items = this.items();
    const count = (state: BatchItem['state']) => items.filter((i) => i.state === state).length;
    return { items, signed: count('signed'), failed: count('failed'), skipped: count('skipped'), stoppedBy };
  }
}
