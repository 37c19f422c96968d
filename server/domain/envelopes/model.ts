/** Envelope vocabulary shared by the envelope operations. */
import type { Creator } from '../users/creators.js';
import type { ReminderSettings } from '../workflow/reminder-settings.js';

export const ROUTING_ORDERS = ['parallel', 'sequential'] as const;
export const ROLES = ['signer', 'reviewer', 'approver', 'cc'] as const;
export const SIGNATURE_METHODS = ['electronic', 'aadhaar', 'dsc', 'review'] as const;

export type RoutingOrder = (typeof ROUTING_ORDERS)[number];
export type Role = (typeof ROLES)[number];
export type SignatureMethod = (typeof SIGNATURE_METHODS)[number];

/** Draft recipients are `created`; the workflow moves them on once the envelope is sent. */
export const DRAFT_RECIPIENT_STATUS = 'created';

export interface RecipientInput {
  name: string;
  email: string;
  role?: Role;
  signature_method?: SignatureMethod;
  sequence?: number;
}

/** How recipients are reached: the envelope's send_mail column (1 email, 0 none). */
export type Delivery = 'email' | 'none';

export interface EnvelopeInput {
  title: string;
  external_id?: string;
  routing_order?: RoutingOrder;
  message?: string;
  expire_in_days?: number;
  redirect_url?: string;
  metadata?: Record<string, unknown>;
  recipients?: RecipientInput[];
  /** email (default) or none: Mohar mails the recipients or not (headless; links from signing sessions). */
  delivery?: Delivery;
  /** The envelope's own automatic reminders (workflow/reminder-settings.ts); absent or null: the account's defaults. */
  reminders?: Partial<ReminderSettings> | null;
  /** Not from the request body: the console user creating it (issue 15); absent for API keys and the system. */
  createdBy?: Creator;
}
