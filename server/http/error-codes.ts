/**
 * The one table that maps Mohar's stable error codes to HTTP. Every MoharError code (the ErrorCode union
 * of common/errors.ts) has its row here, or this does not compile; docs/errors.md lists each, a test enforces it.
 */
import type { ErrorCode } from '../../common/errors.js';

export interface ErrorCodeInfo {
  readonly status: number;
  readonly title: string;
}

export const ERROR_CODES: Readonly<Record<ErrorCode, ErrorCodeInfo>> = {
  // Request shape
  validation_failed: { status: 422, title: 'The request is not valid' },
  malformed_json: { status: 400, title: 'The request body is not valid JSON' },
  unsupported_media_type: { status: 415, title: 'Unsupported content type' },
  body_too_large: { status: 413, title: 'The request body is too large' },
  missing_file: { status: 422, title: 'A file part is required' },
  route_not_found: { status: 404, title: 'No such route' },
  bad_request: { status: 400, title: 'Bad request' },

  // Authentication and accounts
  invalid_api_key: { status: 401, title: 'Missing or invalid API key' },
  invalid_credentials: { status: 401, title: 'Wrong e-mail or password' },
  invalid_token: { status: 401, title: 'Missing, invalid or expired login token' },
  insufficient_role: { status: 403, title: 'This login may not do that' },
  account_locked: { status: 429, title: 'Too many failed logins' },
  session_missing: { status: 401, title: 'Not logged in' },
  csrf_header_missing: { status: 403, title: 'The console header is missing (cross-site request refused)' },
  test_mode_not_enabled: { status: 403, title: 'Test mode is not enabled for this account' },
  too_many_login_attempts: { status: 429, title: 'Too many failed logins from this address' },
  user_not_found: { status: 404, title: 'No such user in this account' },
  user_exists: { status: 409, title: 'A user with this e-mail exists' },
  last_admin: { status: 409, title: 'The account needs an active admin' },
  invalid_link: { status: 410, title: 'The link has expired, was used or is not valid' },

  // Idempotency
  idempotency_conflict: { status: 409, title: 'Idempotency key reused with a different request' },
  idempotency_in_progress: { status: 409, title: 'A request with this idempotency key is still in progress' },

  // Envelopes and documents
  envelope_not_found: { status: 404, title: 'Envelope not found' },
  document_not_found: { status: 404, title: 'Document not found' },
  recipient_not_found: { status: 404, title: 'Recipient not found' },
  envelope_not_draft: { status: 409, title: 'The envelope is no longer a draft' },
  external_id_conflict: { status: 409, title: 'An envelope with this external_id exists' },
  document_already_attached: { status: 409, title: 'The document is already attached to this envelope' },
  invalid_field_layout: { status: 422, title: 'The field layout is not valid' },
  dsc_single_document: { status: 422, title: 'A DSC envelope holds exactly one PDF' },
  dsc_single_signer: { status: 422, title: 'A DSC envelope has one DSC signing recipient' },
  envelope_incomplete: { status: 422, title: 'The envelope cannot be sent yet' },
  aadhaar_not_configured: { status: 422, title: 'Aadhaar eSign is not configured on this server' },
  esign_xml_invalid: { status: 422, title: 'The Aadhaar eSign message is not acceptable' },
  esign_failed: { status: 422, title: 'The eSign service provider did not sign' },
  esign_response_invalid: { status: 422, title: 'The Aadhaar eSign response was not accepted' },
  esign_txn_invalid: { status: 409, title: 'The eSign transaction cannot be answered' },
  esign_unavailable: { status: 503, title: 'Aadhaar eSign is unavailable' },
  envelope_finished: { status: 409, title: 'The envelope is finished' },
  envelope_not_in_progress: { status: 409, title: 'The envelope is not in progress' },
  envelope_closed: { status: 410, title: 'Nobody can act on this envelope any more' },
  recipient_not_active: { status: 409, title: 'This recipient cannot act now' },
  origin_not_allowed: { status: 403, title: 'The origin is not allowed on this account' },
  signing_session_expired: { status: 410, title: 'The signing link has expired' },
  signing_link_used: { status: 410, title: 'The signing link was used' },
  signing_link_revoked: { status: 410, title: 'The signing link is no longer valid' },
  action_not_allowed: { status: 422, title: 'This recipient cannot do that' },
  consent_required: { status: 422, title: 'Consent is required' },
  invalid_field_values: { status: 422, title: 'Field values are missing or wrong' },
  field_read_only: { status: 422, title: 'A pre-assigned field value cannot be changed' },
  dsc_signing_required: { status: 422, title: 'A USB DSC signer signs with the token' },
  dsc_certificate_untrusted: { status: 422, title: 'The DSC certificate is not trusted' },
  dsc_identity_mismatch: { status: 422, title: 'The DSC certificate does not name this recipient' },
  concurrent_update: { status: 409, title: 'The document changed meanwhile' },
  document_not_ready: { status: 409, title: 'The signed document is not ready' },
  documents_purged: { status: 410, title: 'The documents were deleted by the retention policy' },

  // Templates
  template_not_found: { status: 404, title: 'Template not found' },
  template_version_not_found: { status: 404, title: 'The template has no such version' },
  template_archived: { status: 409, title: 'The template is archived' },
  precondition_failed: { status: 412, title: 'The resource changed since the version given in If-Match' },
  invalid_role_mapping: { status: 422, title: 'The recipients do not match the template roles' },
  idempotency_key_required: { status: 400, title: 'This call needs an Idempotency-Key header' },

  // Bulk send
  bulk_send_not_found: { status: 404, title: 'Bulk send not found' },
  bulk_source_state: { status: 409, title: 'The bulk send source cannot be fanned out' },
  invalid_rows: { status: 422, title: 'Some rows of the bulk send are not valid' },
  bulk_send_finished: { status: 409, title: 'The bulk send is finished already' },
  bulk_row_taken: { status: 409, title: 'The bulk send row has its envelope already' },

  // Sandbox (mock USB DSC)
  mock_signing_not_enabled: { status: 403, title: 'Mock DSC signing is not enabled for this key' },
  mock_request_not_found: { status: 404, title: 'No such mock DSC request' },
  signing_not_completed: { status: 409, title: 'The mock request is not signed yet' },
  invalid_signed_document: { status: 422, title: 'The signed document was not accepted' },

  // Legacy document API, rate limits and quota
  account_suspended: { status: 403, title: 'The account is suspended' },
  rate_limited: { status: 429, title: 'Too many requests' },
  monthly_quota_exceeded: { status: 429, title: 'The monthly call quota is spent' },
  document_not_owned: { status: 403, title: 'The document belongs to another account' },
  doc_url_not_allowed: { status: 422, title: 'The document URL may not be fetched' },
  doc_url_fetch_failed: { status: 422, title: 'The document URL could not be fetched' },
  download_link_expired: { status: 410, title: 'The download link has expired or is not valid' },

  // PDFs
  invalid_pdf: { status: 422, title: 'The file is not a readable PDF' },
  pdf_encrypted: { status: 422, title: 'The PDF is password-protected' },
  pdf_too_complex: { status: 422, title: 'The PDF exceeds the processing limits' },
  file_too_large: { status: 413, title: 'The file is too large' },
  server_busy: { status: 503, title: 'The server is busy processing other files' },

  // Signing (pdf/, native/)
  invalid_signature_data: { status: 422, title: 'The signature data is malformed' },
  signing_key_invalid: { status: 422, title: 'The signing key cannot be used' },
  tsa_unavailable: { status: 503, title: 'No trusted timestamp could be obtained' },
  validation_data_unavailable: { status: 503, title: 'Revocation data for a certificate could not be obtained' },

  // PDF writing and signing (pdf/write, pdf/sign, pdf/prepare)
  document_locked: { status: 409, title: 'The document is certified against further changes' },
  certification_not_allowed: {
    status: 409,
    title: 'The document cannot be certified: it is signed or certified already',
  },
  signature_field_not_found: { status: 422, title: 'No such signature field' },
  signature_field_signed: { status: 409, title: 'The signature field is already signed' },
  field_name_taken: { status: 409, title: 'A form field of that name exists' },
  form_field_not_found: { status: 422, title: 'No such form field' },
  form_value_invalid: { status: 422, title: 'The value does not fit the form field' },
  page_out_of_range: { status: 422, title: 'No such page' },
  outside_page: { status: 422, title: 'The rectangle is not inside the page' },
  empty_rectangle: { status: 422, title: 'The rectangle is empty' },
  signature_too_large: { status: 422, title: 'The signature does not fit its reserved space' },
  image_invalid: { status: 422, title: 'The signature image cannot be used' },
  pdf_unsupported: { status: 422, title: 'The PDF uses a feature Mohar cannot sign' },
  pdf_write_failed: { status: 500, title: 'Writing the PDF revision failed' },

  // USB tokens (native/)
  module_load_failed: { status: 500, title: 'A PKCS#11 module could not be loaded' },
  token_not_present: { status: 409, title: 'The token is not present' },
  token_removed: { status: 409, title: 'The token was removed' },
  pin_incorrect: { status: 403, title: 'The PIN is incorrect' },
  pin_locked: { status: 423, title: 'The PIN is locked' },
  pin_expired: { status: 403, title: 'The PIN has expired' },
  key_not_found: { status: 404, title: 'No private key for that certificate on the token' },
  mechanism_not_supported: { status: 422, title: 'The token cannot sign with the required mechanism' },
  certificate_expired: { status: 422, title: 'The certificate is not valid now' },
  invalid_certificate: { status: 422, title: 'The certificate cannot be read' },
  pkcs11_error: { status: 500, title: 'The token reported an error' },

  // The installation's seal
  seal_key_unreadable: { status: 503, title: 'The seal key cannot be read' },
  seal_expired: { status: 503, title: 'The seal certificate is not valid now' },

  // Webhooks
  invalid_webhook_url: { status: 422, title: 'The webhook URL cannot be used' },
  webhook_not_registered: { status: 404, title: 'No webhook is registered' },
  webhook_disabled: { status: 409, title: 'The webhook is disabled' },
  webhook_delivery_not_found: { status: 404, title: 'Webhook delivery not found' },
  webhook_delivery_in_progress: { status: 409, title: 'An attempt of this delivery is in flight' },

  // Operators (outbox, jobs)
  mail_not_found: { status: 404, title: 'No such mail in the outbox' },
  mail_not_resendable: { status: 409, title: 'The mail cannot be sent again' },
  smtp_not_configured: { status: 409, title: 'No SMTP server is set' },
  mail_settings_locked: { status: 409, title: 'The environment sets the mail server' },
  job_not_found: { status: 404, title: 'No such job' },
  job_not_dead: { status: 409, title: 'The job is not dead' },

  // Audit trail
  audit_chain_broken: { status: 500, title: 'The envelope audit trail does not verify' },

  // Backup and restore (the CLI: statuses only for completeness, no route answers them)
  backup_invalid: { status: 422, title: 'The backup does not verify' },
  backup_passphrase_incorrect: { status: 403, title: 'The passphrase does not open the backup' },
  backup_target_not_empty: { status: 409, title: 'The target directory is not empty' },

  // Server side
  blob_missing: { status: 500, title: 'Stored bytes are missing' },
  storage_full: { status: 503, title: 'The server has no storage space left' },
  not_ready: { status: 503, title: 'The server is not ready to serve' },
  internal_error: { status: 500, title: 'Internal error' },
};

export function errorCodeInfo(code: string): ErrorCodeInfo | undefined {
  return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as ErrorCode] : undefined;
}
