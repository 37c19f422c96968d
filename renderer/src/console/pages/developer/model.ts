/** The developer portal's server answers ({legacy_base} routes; docs/webhooks.md, docs/legacy-api.md). */
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../../../../../common/events';
import { LEGACY_BASE } from '../../api';

export const legacy = (path: string): string => `${LEGACY_BASE}${path}`;

export type KeyMode = 'live' | 'test';

export interface KeyMetadata {
  api_key_prefix: string;
  mode: KeyMode;
  created_at: string;
  last_used_at: string | null;
}

export interface KeyList {
  api_key_prefix: string | null;
  keys: KeyMetadata[];
}

export interface GeneratedKey {
  api_key: string;
  api_key_prefix: string;
  mode: KeyMode;
  created_at: string;
}

export interface WebhookEndpoint {
  id: string;
  webhook_url: string;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  disabled_at: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** GET /webhook/policy/: whether this server accepts plain http and private or loopback receivers. */
export interface WebhookPolicy {
  allow_private: boolean;
}

export interface WebhookSecret {
  webhook_secret: string;
  previous_secret_expires_at: string | null;
}

export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'dead', 'paused'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  envelope_id: string | null;
  webhook_url: string;
  status: DeliveryStatus;
  success: boolean;
  attempts: number;
  max_attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface Attempt {
  id: string;
  delivery_id: string;
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

export interface Page<T> {
  items: T[];
  next_before: string | null;
}

export interface DeliveryDetail extends Delivery {
  attempt_log: Attempt[];
}

export interface AccountSettings {
  allowed_origins: string[];
  accept_untrusted_dsc: boolean;
  accept_dsc_identity_mismatch: boolean;
  require_dsc_identity_match: boolean;
}

export interface UsageSummary {
  period: string;
  period_start: string;
  period_end: string;
  monthly_call_limit: number | null;
  calls_used: number;
  calls_remaining: number | null;
  test_calls: number;
  rate_limit: { requests_per_minute: number | null; window_seconds: number };
}

export const deliveryTone = (status: DeliveryStatus): string =>
  ({
    pending: 'tone-info',
    delivering: 'tone-info',
    succeeded: 'tone-success',
    dead: 'tone-danger',
    paused: 'tone-warning',
  })[status];

/** Event types a filter offers: every webhook event (common/events.ts), the test event first. */
export const EVENT_TYPES = [TEST_EVENT_TYPE, ...WEBHOOK_EVENT_TYPES.filter((type) => type !== TEST_EVENT_TYPE)];
