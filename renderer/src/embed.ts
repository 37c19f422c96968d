/**
 * Tells the embedding page what happened, with postMessage to the session's allowed origin only (never "*":
 * another origin framing the page is refused by frame-ancestors, and would not get the message either).
 */
import { embedOrigin } from './page-context';

export type EmbedEvent = 'signed' | 'declined' | 'error';

export interface EmbedMessage {
  type: 'mohar.signing';
  event: EmbedEvent;
  /** For "error": the problem code (e.g. signing_session_expired). */
  code?: string;
}

export function notifyParent(event: EmbedEvent, code?: string): void {
  const origin = embedOrigin();
  if (!origin || window.parent === window) return;
  const message: EmbedMessage = { type: 'mohar.signing', event, ...(code ? { code } : {}) };
  window.parent.postMessage(message, origin);
}
