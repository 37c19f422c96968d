/**
 * Where the server mounts its APIs and pages. The server registers its routes under these, and the
 * renderer, the CLI and the mails build their URLs from them, so a path is spelled in one place.
 */

/** The envelope API (API keys, the signer API under /signing/{token}, the console's calls). */
export const API_BASE = '/backend/api/v1';

/** The legacy document API and account management (login, keys, users); its paths end in a slash. */
export const LEGACY_BASE = '/backend/othercompanyapi';

/** The hosted signing page: a signing link is {base_url}/sign/{token}; its assets live under /sign/assets/. */
export const SIGNING_PAGE_BASE = '/sign';

/**
 * The ESP simulator built into the server for test data (server/aadhaar/sandbox-esp.ts): its form URL is
 * {base_url}/sandbox/esp/esign/2.1/signdoc.
 */
export const SANDBOX_ESP_PATH = '/sandbox/esp';
