/** What the developer-portal API shows of endpoints, deliveries and attempts (never a secret). */
import type { Selectable } from 'kysely';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookDeliveryStatus,
  WebhookEndpointsTable,
} from '../../storage/schema.js';

export const DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = [
  'pending',
  'delivering',
  'succeeded',
  'dead',
  'paused',
];

export interface WebhookEndpointView {
  id: string;
  kind: 'account' | 'sandbox';
  webhook_url: string;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  disabled_at: string | null;
  /** While a rotated-out secret still signs alongside the current one: until when. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export function endpointView(row: Selectable<WebhookEndpointsTable>, now: Date): WebhookEndpointView {
  const overlap =
    row.previous_secret !== null &&
    row.previous_secret_expires_at !== null &&
    row.previous_secret_expires_at > now.toISOString();
  return {
    id: row.id,
    kind: row.kind,
    webhook_url: row.url,
    status: row.status,
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at,
    previous_secret_expires_at: overlap ? row.previous_secret_expires_at : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  envelope_id: string | null;
  sequence: number;
  endpoint_id: string;
  webhook_url: string;
  status: WebhookDeliveryStatus;
  success: boolean;
  attempts: number;
  max_attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export function deliveryView(row: Selectable<WebhookDeliveriesTable> & { url: string }): DeliveryView {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    envelope_id: row.envelope_id,
    sequence: Number(row.sequence),
    endpoint_id: row.endpoint_id,
    webhook_url: row.url,
    status: row.status,
    success: row.status === 'succeeded',
    attempts: Number(row.attempts),
    max_attempts: Number(row.max_attempts),
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    last_status_code: row.last_status_code === null ? null : Number(row.last_status_code),
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
    delivered_at: row.delivered_at,
  };
}

export interface AttemptView {
  id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  webhook_url: string;
  attempt: number;
  status_code: number | null;
  success: boolean;
  duration_ms: number;
  error: string | null;
  started_at: string;
  finished_at: string;
}

export function attemptView(row: Selectable<WebhookAttemptsTable>): AttemptView {
  return {
    id: row.id,
    delivery_id: row.delivery_id,
    event_id: row.event_id,
    event_type: row.event_type,
    webhook_url: row.url,
    attempt: Number(row.attempt),
    status_code: row.status_code === null ? null : Number(row.status_code),
    success: Number(row.success) === 1,
    duration_ms: Number(row.duration_ms),
    error: row.error,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}
