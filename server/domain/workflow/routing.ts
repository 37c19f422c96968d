/**
 * Who acts when. Sequential routing: the lowest `sequence` among actors who have not finished acts
 * (equal numbers form a parallel group); parallel routing: every actor at once. cc recipients never
 * act: they receive the completed copy.
 */
import type { RecipientStatus } from './states.js';

export const ACTOR_ROLES: ReadonlySet<string> = new Set(['signer', 'reviewer', 'approver']);
/** A recipient in one of these has finished its part. */
export const FINISHED_STATUSES: ReadonlySet<RecipientStatus> = new Set(['signed', 'approved', 'reviewed']);
/** A recipient in one of these may act now. */
export const ACTIVE_STATUSES: ReadonlySet<RecipientStatus> = new Set(['active', 'viewed']);

export interface RoutingRecipient {
  readonly id: string;
  readonly role: string;
  readonly sequence: number;
  readonly status: RecipientStatus;
}

export function isActor(r: { role: string }): boolean {
  return ACTOR_ROLES.has(r.role);
}

/** Ids of the actors whose turn it is now (empty when every actor has finished). */
export function currentTurn(recipients: readonly RoutingRecipient[], routing: string): string[] {
  const pending = recipients.filter((r) => isActor(r) && !FINISHED_STATUSES.has(r.status));
  if (pending.length === 0) return [];
  if (routing === 'parallel') return pending.map((r) => r.id);
  const lowest = Math.min(...pending.map((r) => r.sequence));
  return pending.filter((r) => r.sequence === lowest).map((r) => r.id);
}

export function everyActorFinished(recipients: readonly RoutingRecipient[]): boolean {
  return recipients.filter(isActor).every((r) => FINISHED_STATUSES.has(r.status));
}
