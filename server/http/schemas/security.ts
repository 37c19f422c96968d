/**
 * The OpenAPI `security` of each kind of route, one per hook of server/http/auth-hooks.ts, so the documents say
 * which credential a route accepts exactly as the hook checks it (the scheme names are openapi.ts's).
 */
type Security = { [scheme: string]: string[] }[];

/** No credential: the token in the path or body (a signing link, a set-password link) or nothing is the proof. */
export const PUBLIC: Security = [];

/** requireApiKey(ctx, { keyOnly: true }): the account key only (the legacy document calls, the sandbox). */
export const API_KEY: Security = [{ apiKey: [] }];

/**
 * requireApiKey(ctx): the account key, or the login token of any user of the account (the office console calls
 * the envelope API its integrators use); requireKeyOrLogin(ctx): the key, or an admin or api_admin login.
 */
export const API_KEY_OR_LOGIN: Security = [{ apiKey: [] }, { bearer: [] }];

/** requireAdminLogin, requireUserLogin, requireUserAdmin: a login token (Authorization: Bearer). */
export const LOGIN: Security = [{ bearer: [] }];
