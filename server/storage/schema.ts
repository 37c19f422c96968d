/**
 * Table shapes as Kysely sees them. Portable across SQLite and PostgreSQL on purpose:
 * times are ISO-8601 UTC strings (fixed width, so they sort as text), booleans are 0/1 integers,
 * JSON is stored as text. The blob table exists on PostgreSQL only (SQLite keeps files on disk).
 */
import type { Generated } from 'kysely';

export interface AccountsTable {
  id: string;
  name: string;
  test_mode: number;
  suspended: number;
  monthly_call_limit: number | null;
  /** JSON object: allowed_origins and later account settings. */
  settings: string;
  created_at: string;
  /** Days after an envelope finished that its documents are purged; null: kept (migration 0024). */
  retention_days?: number | null;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  role: string;
  locked_until: string | null;
  created_at: string;
  /** active | invited (no password set yet) | deactivated (cannot log in). */
  status: Generated<string>;
  last_login_at: string | null;
}

/** Single-use links: invite (set the first password) and reset (forgotten password); SHA-256 of the token. */
export interface UserTokensTable {
  token_hash: string;
  user_id: string;
  purpose: 'invite' | 'reset';
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface AccountAuditLogTable {
  id: string;
  account_id: string;
  actor_user_id: string | null;
  actor_email: string | null;
  action: string;
  target: string | null;
  /** JSON object or null. */
  detail: string | null;
  ip: string | null;
  created_at: string;
}

export interface LoginAddressFailuresTable {
  id: Generated<number>;
  address: string;
  failed_at: string;
}

export interface LoginFailuresTable {
  id: Generated<number>;
  user_id: string;
  failed_at: string;
}

export interface AuthTokensTable {
  token_hash: string;
  user_id: string;
  kind: 'access' | 'refresh';
  /** For access tokens: the refresh token that minted them, so logout revokes both. */
  refresh_hash: string | null;
  /** The login this token descends from (migration 0018): a replayed refresh token revokes the whole family. */
  family: string | null;
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  mode: 'live' | 'test';
  prefix: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface DocumentsTable {
  id: string;
  account_id: string;
  filename: string;
  sha256: string;
  size: number;
  page_count: number;
  /** JSON: page geometry and signature fields found at upload (see pdf/inspect). */
  info: string;
  created_at: string;
  /** Live or test, like the envelopes it may be attached to (migration 0016, default live). */
  mode?: DataMode;
  /** Purged with the last envelope that used it (migration 0024); refused when named again. */
  purged_at?: string | null;
}

export interface EnvelopesTable {
  id: string;
  account_id: string;
  title: string;
  status: EnvelopeStatus;
  external_id: string | null;
  routing_order: string;
  message: string | null;
  expire_in_days: number | null;
  redirect_url: string | null;
  metadata: string | null;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  completed_at: string | null;
  expires_at: string | null;
  /** Why it was voided or declined. */
  status_reason: string | null;
  /** PAdES level reached by the final document (B-B … B-LTA). */
  pades_level: string | null;
  /** The sealed certificate of completion (a separate PDF), once issued. */
  certificate_sha256: string | null;
  /** Sequence number of the last event recorded for this envelope. */
  events_seq: Generated<number>;
  /** The template and version it was instantiated from (migration 0011); null otherwise. */
  template_id?: string | null;
  template_version?: number | null;
  /** JSON { first_after_days, every_days, expiry_warning_days } or null: the account's defaults (migration 0017). */
  reminders?: string | null;
  /** The bulk send and row that made it (migration 0012; UNIQUE together); null otherwise. */
  bulk_send_id?: string | null;
  row_index?: number | null;
  /** Normalized title, external_id, recipient names and e-mails for `GET /envelopes?q=` (migration 0013). */
  search_text?: string | null;
  /** The console user who created it (migration 0015); null: an API key or the system. */
  created_by_user_id?: string | null;
  /** Live or test data, from the key that made it; a console login is live (migration 0016, default live). */
  mode?: DataMode;
  /**
   * 1: Mohar mails the recipients (delivery "email"); 0: delivery "none", links from signing sessions (migration 0016,
   * default 1).
   */
  send_mail?: number;
  /**
   * JSON { recipients, values } while an instantiated draft's fields are those of its template version, by
   * reference (migration 0020; domain/envelopes/field-rows.ts); null once they are rows in `fields`, and for every
   * other envelope.
   */
  pending_layout?: string | null;
  /** A legal hold (migration 0024): while legal_hold_at is set, retention never purges the envelope. */
  legal_hold_at?: string | null;
  /** Who placed it: "user:<id>" or "api_key:<id>". */
  legal_hold_by?: string | null;
  legal_hold_reason?: string | null;
  /** When retention purged its documents (migration 0024); hashes, audit trail and certificate remain. */
  purged_at?: string | null;
}

/** Whose data a row is: made with a live key (or a console login) or a qsk_test_ key (issue 16). */
export type DataMode = 'live' | 'test';

/** An envelope's state; domain/workflow/states.ts lists them and says which are finished. */
export type EnvelopeStatus = 'draft' | 'sent' | 'completed' | 'declined' | 'voided' | 'expired';
/**
 * A recipient's state: created (draft), waiting (a later turn), active and viewed (may act), how it finished;
 * completed: a cc.
 */
export type RecipientStatus =
  'created' | 'waiting' | 'active' | 'viewed' | 'signed' | 'approved' | 'reviewed' | 'declined' | 'completed';

export interface RecipientsTable {
  id: string;
  envelope_id: string;
  name: string;
  email: string;
  role: string;
  signature_method: string;
  sequence: number;
  status: RecipientStatus;
  position: number;
  created_at: string;
  viewed_at: string | null;
  acted_at: string | null;
  decline_reason: string | null;
  /** JSON: consent, IP, user agent, method, certificate of the act. */
  act_details: string | null;
  reminded_at: string | null;
  /** When this recipient was warned that the envelope expires soon (migration 0017; once). */
  expiry_warned_at?: string | null;
  /** USB DSC: SHA-256 of the bytes handed out to be signed by the token. */
  prepared_sha256: string | null;
}

export interface EnvelopeDocumentsTable {
  envelope_id: string;
  document_id: string;
  position: number;
  created_at: string;
  /** SHA-256 of the latest revision once sent (null while a draft). */
  current_sha256: string | null;
  /** 1 when certified at send (DocMDP P=2), 0 when not; null while a draft. */
  certified: number | null;
  /** Why it was not certified at send (null when certified, or while a draft). */
  certification_skipped: string | null;
}

export interface DocumentRevisionsTable {
  envelope_id: string;
  document_id: string;
  seq: number;
  sha256: string;
  size: number;
  /**
   * uploaded | prepared | certified (send); filled | signed | approved (acts); sealed (the completion lock),
   * validation_data | document_timestamp (completion's long-term validation)
   */
  act: string;
  recipient_id: string | null;
  created_at: string;
}

export interface SigningSessionsTable {
  token_hash: string;
  envelope_id: string;
  recipient_id: string;
  mode: string;
  origin: string | null;
  return_url: string | null;
  expires_at: string;
  created_at: string;
  /** How the link was handed out (migration 0017): mail | legacy_link | session | sandbox. */
  kind?: SigningLinkKind;
  /** Set when a newer link of the recipient replaced it, or revoke-links ended it (migration 0017). */
  revoked_at?: string | null;
}

export type SigningLinkKind = 'mail' | 'legacy_link' | 'session' | 'sandbox';

export interface EventsTable {
  id: string;
  account_id: string;
  envelope_id: string | null;
  type: string;
  /** Increases per envelope, so receivers can order events. */
  sequence: number;
  payload: string;
  created_at: string;
}

export interface FieldsTable {
  id: string;
  envelope_id: string;
  document_id: string;
  recipient_id: string;
  position: number;
  field_type: number;
  page_number: number;
  x: number;
  y: number;
  width: number;
  height: number;
  label: string | null;
  value: string | null;
  options: string | null;
  pdf_signature_field: string | null;
  required: number;
  /** 1: the signer may change a pre-assigned value; 0 (default): it is read-only for them. */
  editable: number;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  state: 'in_flight' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
  /** The process running an in-flight key's request (host:pid:random); null when done. */
  lease_owner: string | null;
  /** Until when that process is taken for alive (renewed while it runs); null when done. */
  lease_expires_at: string | null;
}

export interface BlobsTable {
  sha256: string;
  size: number;
  data: Uint8Array;
  created_at: string;
}

/** The installation's seal key (server/seal). At most one active row per kind (partial unique index). */
export interface SealKeysTable {
  id: string;
  /** installation: the seal; test: the test seal of test envelopes (issue 16), never used for live ones. */
  kind: 'installation' | 'test';
  /** Base64 DER of the seal certificate. */
  certificate: string;
  /** JSON array of base64 DER certificates above the seal (the installation CA). */
  chain: string;
  /** PKCS#8 DER of the private key, encrypted with the secret box (server/seal/secret-box.ts). */
  private_key: string;
  created_at: string;
  active: number;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  login_failures: LoginFailuresTable;
  auth_tokens: AuthTokensTable;
  user_tokens: UserTokensTable;
  account_audit_log: AccountAuditLogTable;
  login_address_failures: LoginAddressFailuresTable;
  api_keys: ApiKeysTable;
  documents: DocumentsTable;
  envelopes: EnvelopesTable;
  recipients: RecipientsTable;
  envelope_documents: EnvelopeDocumentsTable;
  fields: FieldsTable;
  idempotency_keys: IdempotencyKeysTable;
  blobs: BlobsTable;
  document_revisions: DocumentRevisionsTable;
  signing_sessions: SigningSessionsTable;
  events: EventsTable;
  jobs: JobsTable;
  outbox_mail: OutboxMailTable;
  seal_keys: SealKeysTable;
  audit_events: AuditEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_bindings: WebhookBindingsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  legacy_documents: LegacyDocumentsTable;
  usage_counters: UsageCountersTable;
  rate_limit_counters: RateLimitCountersTable;
  sandbox_requests: SandboxRequestsTable;
  templates: TemplatesTable;
  template_versions: TemplateVersionsTable;
  template_audit: TemplateAuditTable;
  bulk_sends: BulkSendsTable;
  bulk_send_rows: BulkSendRowsTable;
  envelope_search_terms: EnvelopeSearchTermsTable;
  esign_transactions: EsignTransactionsTable;
  mail_settings: MailSettingsTable;
}

/** How the connection to a mail server is secured: none, STARTTLS after connecting, or TLS from the start. */
export type MailTlsMode = 'none' | 'starttls' | 'tls';

/** An account's own mail server, set in the console (migration 0022; server/mail/mail-settings.ts). */
export interface MailSettingsTable {
  account_id: string;
  host: string;
  port: number;
  tls: MailTlsMode;
  username: string | null;
  /** The SMTP password, secret-box sealed with the account id as context; null: none. */
  password_sealed: string | null;
  from_address: string;
  from_name: string | null;
  updated_at: string;
  /** The user who saved them last. */
  updated_by: string | null;
}

/** Aadhaar eSign transactions (migration 0019; server/domain/aadhaar/). */
export interface EsignTransactionsTable {
  id: string;
  account_id: string;
  envelope_id: string;
  recipient_id: string;
  session_token_hash: string;
  /** The signing link's token, secret-box sealed with the txn id as context. */
  return_token: string;
  /** JSON: the prepared documents (see the migration). */
  documents: string;
  /** JSON: [field_id, value] pairs stored with the act. */
  field_values: string;
  state: 'pending' | 'signed' | 'failed';
  created_at: string;
  expires_at: string;
  used_at: string | null;
  response_code: string | null;
  error_code: string | null;
  error_message: string | null;
}

/** Word-start suffixes of an envelope's searchable texts (migration 0013; server/storage/search-terms.ts). */
export interface EnvelopeSearchTermsTable {
  account_id: string;
  term: string;
  envelope_id: string;
}

/** An envelope made through the legacy document API, by its integer document id (migration 0008). */
export interface LegacyDocumentsTable {
  id: Generated<number>;
  account_id: string;
  /** Null only while the create call is building the envelope. */
  envelope_id: string | null;
  /**
   * 0: headless (is_mail_required false): recipients get no mail (the envelope's own send_mail decides, migration
   * 0016).
   */
  send_mail: number;
  /** 1: made with a qsk_test_ key (no quota used, test data: its envelope's mode is test). */
  test: number;
  created_at: string;
}

/** Legacy create calls per account and calendar month (UTC): the monthly quota. */
export interface UsageCountersTable {
  account_id: string;
  /** YYYY-MM (UTC). */
  period: string;
  calls: number;
  /** Calls made with test keys: counted, never against the quota. */
  test_calls: number;
}

/** Per-key request counts per one-minute window, shared across instances on PostgreSQL. */
export interface RateLimitCountersTable {
  key_id: string;
  /** Minutes since the Unix epoch. */
  minute: number;
  count: number;
}

/** The envelope audit trail (server/audit): append-only, one SHA-256 hash chain per envelope. */
export interface AuditEventsTable {
  envelope_id: string;
  /** 1, 2, 3... per envelope, without gaps. */
  seq: number;
  account_id: string;
  at: string;
  actor_type: 'api_key' | 'user' | 'recipient' | 'system' | 'admin';
  actor_id: string | null;
  /** e.g. envelope.created, recipient.signed, document.sealed. */
  action: string;
  /** JSON object (canonical: sorted keys, no spaces). */
  details: string;
  /** `hash` of the previous row; 64 zeros for seq 1. */
  prev_hash: string;
  /** SHA-256 (hex) of the canonical JSON of every other column (server/audit/chain.ts). */
  hash: string;
}

export type JobState = 'queued' | 'running' | 'done' | 'dead';

/** Durable background work (server/jobs): claimed with a lease, retried with backoff, dead letters kept. */
export interface JobsTable {
  id: string;
  kind: string;
  /** JSON: the handler's input. */
  payload: string;
  state: JobState;
  /** Attempts started so far (counted when claimed). */
  attempts: number;
  max_attempts: number;
  /** Not run before this time. */
  run_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_error: string | null;
  /** Unique when not null: the same logical job is enqueued once. */
  dedupe_key: string | null;
  /** The account the job works for (jobs listing); null for installation jobs. */
  account_id: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export type MailKind = 'invitation' | 'your_turn' | 'reminder' | 'completion' | 'declined' | 'voided' | 'other';
export type MailStatus = 'queued' | 'sent' | 'failed' | 'kept';

/** Every mail Mohar sends (server/mail), written before it is sent; kept when no SMTP server is set. */
export interface OutboxMailTable {
  id: string;
  account_id: string;
  to_address: string;
  to_name: string | null;
  subject: string;
  text: string;
  html: string | null;
  /** JSON list of {filename, content_type, sha256, size}: the bytes are in the blob store. */
  attachments: string;
  kind: MailKind;
  envelope_id: string | null;
  recipient_id: string | null;
  status: MailStatus;
  attempts: number;
  last_error: string | null;
  /** The Message-ID header sent (stable across retries of one mail). */
  message_id: string | null;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  /** 1: text and html are secret-box ciphertexts, because they carry a signing link (migration 0017). */
  sealed?: number;
  /** 1: a test envelope's mail, kept in the outbox and never delivered (migration 0016, default 0). */
  test?: number;
}

export type WebhookEndpointKind = 'account' | 'sandbox';
export type WebhookEndpointStatus = 'active' | 'disabled';

/** A webhook receiver (server/webhooks): the account's registered one, or a sandbox request's own. */
export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  kind: WebhookEndpointKind;
  url: string;
  /** The signing secret, encrypted with the secret box (server/seal/secret-box.ts). */
  secret: string;
  /** After a rotation: the old secret (encrypted), signing alongside until previous_secret_expires_at. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  status: WebhookEndpointStatus;
  /** Why it was disabled (e.g. the receiver answered 410 Gone). */
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Sends an envelope's events of one type ('*' = all) to an endpoint besides the account's own. */
export interface WebhookBindingsTable {
  envelope_id: string;
  endpoint_id: string;
  event_type: string;
  created_at: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'dead' | 'paused';

/** One event to one endpoint: claimed with a lease, retried on a schedule, dead after the last attempt. */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  account_id: string;
  envelope_id: string | null;
  /** The event's per-envelope sequence (deliveries of one envelope go out in this order). */
  sequence: number;
  event_type: string;
  status: WebhookDeliveryStatus;
  /** Attempts started so far (counted when claimed). */
  attempts: number;
  max_attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** The delivery log: one row per HTTP attempt. */
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  account_id: string;
  url: string;
  attempt: number;
  /** null when no HTTP answer came (refused address, timeout, connection error). */
  status_code: number | null;
  success: number;
  duration_ms: number;
  error: string | null;
  started_at: string;
  finished_at: string;
}

/** A mock USB DSC request of the sandbox (server/domain/sandbox): one envelope with one DSC signer. */
export interface SandboxRequestsTable {
  public_id: string;
  account_id: string;
  envelope_id: string;
  document_id: string;
  recipient_id: string;
  /** The request's own webhook endpoint (kind 'sandbox') when a webhook_url was given. */
  webhook_endpoint_id: string | null;
  /** JSON summary of the ephemeral test certificate, once signed. */
  certificate: string | null;
  created_at: string;
  /** When the signing link ends (24 hours after creation). */
  expires_at: string;
  signed_at: string | null;
}

/** A template (migration 0011): identity and the pointers that move; the definition is in its versions. */
export interface TemplatesTable {
  id: string;
  account_id: string;
  /** The latest version's name, copied here for listing and `?q=` search. */
  name: string;
  latest_version: number;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
  /** The console user who created it (migration 0015); null: an API key or the system. */
  created_by_user_id?: string | null;
  /** The latest version's settings.retention_days (migration 0024); null: the account's policy. */
  retention_days?: number | null;
}

/** One immutable version of a template (append-only: triggers refuse UPDATE and DELETE). */
export interface TemplateVersionsTable {
  template_id: string;
  /** 1, 2, 3... per template. */
  version: number;
  account_id: string;
  /** JSON: name, description, settings, roles, documents (by id and SHA-256) with their fields. */
  definition: string;
  /** JSON: what changed from the previous version (server/domain/templates/summary.ts). */
  summary: string;
  actor_type: 'api_key' | 'user' | 'admin' | 'system';
  actor_id: string | null;
  created_at: string;
}

/** The template audit trail: append-only, one SHA-256 hash chain per template (same hashing as audit_events). */
export interface TemplateAuditTable {
  template_id: string;
  seq: number;
  account_id: string;
  at: string;
  actor_type: 'api_key' | 'user' | 'recipient' | 'system' | 'admin';
  actor_id: string | null;
  /** template.created, template.updated, template.archived, template.restored, template.instantiated. */
  action: string;
  details: string;
  prev_hash: string;
  hash: string;
}

/** A bulk send batch (migration 0012). */
export interface BulkSendsTable {
  id: string;
  account_id: string;
  /** envelope or template. */
  source_kind: string;
  source_id: string;
  source_version: number | null;
  /** JSON: the source's documents, recipients and fields when the batch was accepted. */
  source_snapshot: string;
  /** queued, running, completed, completed_with_errors, canceled. */
  status: string;
  total_rows: number;
  idempotency_key: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
  canceled_at: string | null;
  /** The mode of the key that made it; its envelopes get the same (migration 0016, default live). */
  mode?: DataMode;
}

/** One row of a batch; its envelope carries (bulk_send_id, row_index), unique. */
export interface BulkSendRowsTable {
  bulk_send_id: string;
  row_index: number;
  /** JSON: the row as accepted. */
  input: string;
  external_id: string | null;
  envelope_id: string | null;
  /** pending, created, sent, failed, canceled. */
  status: string;
  error: string | null;
  /** The worker building the row's envelope, until claimed_until (then any worker may take it over). */
  claimed_by: string | null;
  claimed_until: string | null;
  updated_at: string;
}
