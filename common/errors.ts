/**
 * The one error type of Mohar. Every layer (pdf/, native/, server/) throws MoharError with a
 * stable string code; the server maps codes to HTTP in exactly one table (server/http/error-codes.ts).
 * This module is a leaf: it imports nothing, so every layer may depend on it.
 */

/**
 * Every stable code a MoharError may carry. server/http/error-codes.ts maps each to an HTTP status in a
 * Record<ErrorCode, …>, so a code without a status (or a status for no code) does not compile; docs/errors.md
 * documents each (test/server/http/error-codes.test.ts).
 */
export type ErrorCode =
  // Request shape
  | 'validation_failed'
  | 'malformed_json'
  | 'unsupported_media_type'
  | 'body_too_large'
  | 'missing_file'
  | 'route_not_found'
  | 'bad_request'
  // Authentication and accounts
  | 'invalid_api_key'
  | 'invalid_credentials'
  | 'invalid_token'
  | 'insufficient_role'
  | 'account_locked'
  | 'session_missing'
  | 'csrf_header_missing'
  | 'test_mode_not_enabled'
  | 'too_many_login_attempts'
  | 'user_not_found'
  | 'user_exists'
  | 'last_admin'
  | 'invalid_link'
  // Idempotency
  | 'idempotency_conflict'
  | 'idempotency_in_progress'
  // Envelopes and documents
  | 'envelope_not_found'
  | 'document_not_found'
  | 'recipient_not_found'
  | 'envelope_not_draft'
  | 'external_id_conflict'
  | 'document_already_attached'
  | 'invalid_field_layout'
  | 'dsc_single_document'
  | 'dsc_single_signer'
  | 'envelope_incomplete'
  | 'aadhaar_not_configured'
  | 'esign_xml_invalid'
  | 'esign_failed'
  | 'esign_response_invalid'
  | 'esign_txn_invalid'
  | 'esign_unavailable'
  | 'envelope_finished'
  | 'envelope_not_in_progress'
  | 'envelope_closed'
  | 'recipient_not_active'
  | 'origin_not_allowed'
  | 'signing_session_expired'
  | 'signing_link_used'
  | 'signing_link_revoked'
  | 'action_not_allowed'
  | 'consent_required'
  | 'invalid_field_values'
  | 'field_read_only'
  | 'dsc_signing_required'
  | 'dsc_certificate_untrusted'
  | 'dsc_identity_mismatch'
  | 'concurrent_update'
  | 'document_not_ready'
  | 'documents_purged'
  // Templates
  | 'template_not_found'
  | 'template_version_not_found'
  | 'template_archived'
  | 'precondition_failed'
  | 'invalid_role_mapping'
  | 'idempotency_key_required'
  // Bulk send
  | 'bulk_send_not_found'
  | 'bulk_source_state'
  | 'invalid_rows'
  | 'bulk_send_finished'
  | 'bulk_row_taken'
  // Sandbox (mock USB DSC)
  | 'mock_signing_not_enabled'
  | 'mock_request_not_found'
  | 'signing_not_completed'
  | 'invalid_signed_document'
  // Legacy document API, rate limits and quota
  | 'account_suspended'
  | 'rate_limited'
  | 'monthly_quota_exceeded'
  | 'document_not_owned'
  | 'doc_url_not_allowed'
  | 'doc_url_fetch_failed'
  | 'download_link_expired'
  // PDFs
  | 'invalid_pdf'
  | 'pdf_encrypted'
  | 'pdf_too_complex'
  | 'file_too_large'
  | 'server_busy'
  // Signing (pdf/, native/)
  | 'invalid_signature_data'
  | 'signing_key_invalid'
  | 'tsa_unavailable'
  | 'validation_data_unavailable'
  // PDF writing and signing (pdf/write, pdf/sign, pdf/prepare)
  | 'document_locked'
  | 'certification_not_allowed'
  | 'signature_field_not_found'
  | 'signature_field_signed'
  | 'field_name_taken'
  | 'form_field_not_found'
  | 'form_value_invalid'
  | 'page_out_of_range'
  | 'outside_page'
  | 'empty_rectangle'
  | 'signature_too_large'
  | 'image_invalid'
  | 'pdf_unsupported'
  | 'pdf_write_failed'
  // USB tokens (native/)
  | 'module_load_failed'
  | 'token_not_present'
  | 'token_removed'
  | 'pin_incorrect'
  | 'pin_locked'
  | 'pin_expired'
  | 'key_not_found'
  | 'mechanism_not_supported'
  | 'certificate_expired'
  | 'invalid_certificate'
  | 'pkcs11_error'
  // The installation's seal
  | 'seal_key_unreadable'
  | 'seal_expired'
  // Webhooks
  | 'invalid_webhook_url'
  | 'webhook_not_registered'
  | 'webhook_disabled'
  | 'webhook_delivery_not_found'
  | 'webhook_delivery_in_progress'
  // Operators (outbox, jobs)
  | 'mail_not_found'
  | 'mail_not_resendable'
  | 'smtp_not_configured'
  | 'mail_settings_locked'
  | 'job_not_found'
  | 'job_not_dead'
  // Audit trail
  | 'audit_chain_broken'
  // Backup and restore (the CLI)
  | 'backup_invalid'
  | 'backup_passphrase_incorrect'
  | 'backup_target_not_empty'
  // Server side
  | 'blob_missing'
  | 'storage_full'
  | 'not_ready'
  | 'internal_error';

/** One problem with one item of a request (a field, a row, a setting). */
export interface ErrorItem {
  /** Where the problem is: a JSON pointer-ish path such as "/fields/2/x" or "fields[2]". */
  readonly path?: string;
  /** Index of the offending item in a list, when the request was a list. */
  readonly index?: number;
  readonly code?: string;
  readonly message: string;
}

export interface ErrorOptions {
  readonly errors?: readonly ErrorItem[];
  /** Seconds after which a retry may succeed (rate limits, lockouts). */
  readonly retryAfterSeconds?: number;
  /** Extra machine-readable members added to the problem document. */
  readonly extra?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

export class MoharError extends Error {
  readonly code: ErrorCode;
  readonly errors?: readonly ErrorItem[];
  readonly retryAfterSeconds?: number;
  readonly extra?: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MoharError';
    this.code = code;
    if (options.errors) this.errors = options.errors;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.extra) this.extra = options.extra;
  }
}

export function isMoharError(value: unknown, code?: ErrorCode): value is MoharError {
  return value instanceof MoharError && (code === undefined || value.code === code);
}
