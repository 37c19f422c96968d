/** The signer API ({api_base}/signing/{token}): the only server the page talks to. */
import { API_BASE } from '../../common/api-paths';
import type { SignerActBody } from '../../common/signer-act';
import type {
  AadhaarStarted,
  AadhaarStartBody,
  AadhaarStatus,
  ActResult,
  FieldValue,
  PreparedBody,
  SignerView,
} from './types';

export { API_BASE };

/** A problem+json answer: `code` is the stable reason (docs/errors.md). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problem: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Field ids named by an invalid_field_values answer (paths like /fields/{id}). */
  fieldIds(): string[] {
    const errors = Array.isArray(this.problem.errors) ? (this.problem.errors as { path?: string }[]) : [];
    return errors.map((e) => /^\/fields\/(.+)$/.exec(e.path ?? '')?.[1]).filter((id): id is string => id !== undefined);
  }
}

/** Answers that end a link for good (docs/errors.md): the page shows why, instead of the signing screen. */
const DEAD_LINK_CODES = new Set([
  'signing_session_expired',
  'signing_link_revoked',
  'signing_link_used',
  'envelope_closed',
]);

export function isDeadLink(error: unknown): error is ApiError {
  return error instanceof ApiError && DEAD_LINK_CODES.has(error.code);
}

/** The ApiError a failed answer stands for: its problem+json, or the bare status when the body is not one. */
export async function problemOf(response: Response): Promise<ApiError> {
  let problem: Record<string, unknown> = {};
  try {
    problem = (await response.json()) as Record<string, unknown>;
  } catch {
    // not JSON: a proxy or network failure page
  }
  const code = typeof problem.code === 'string' ? problem.code : 'http_error';
  const detail = typeof problem.detail === 'string' ? problem.detail : `HTTP ${response.status}`;
  return new ApiError(response.status, code, detail, problem);
}

async function check(response: Response): Promise<Response> {
  if (response.ok) return response;
  throw await problemOf(response);
}

async function request(url: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    // Plain requests (same-origin credentials, default cache): the server's <link rel=preload> hints for the
    // signer view and the documents are made the same way, so the browser can hand over what it preloaded.
    response = await fetch(url, init);
  } catch (error) {
    throw new ApiError(0, 'network_error', error instanceof Error ? error.message : String(error));
  }
  return check(response);
}

/** The act the page sends: the same type the server's act operations take (common/signer-act.ts). */
export type SignBody = SignerActBody;

export interface SignerApi {
  view(): Promise<SignerView>;
  documentBytes(documentId: string): Promise<Uint8Array>;
  act(body: SignBody): Promise<ActResult>;
  prepared(documentId: string, fields: Record<string, FieldValue>): Promise<{ bytes: Uint8Array; fieldName: string }>;
  uploadSigned(documentId: string, bytes: Uint8Array): Promise<ActResult>;
  /** Sandbox mock DSC requests only: the server signs with an ephemeral test certificate. */
  signWithTestCertificate(): Promise<ActResult>;
  /** Aadhaar eSign: prepares the signature; open `autopost_url` to go to the eSign service provider. */
  startAadhaar(fields: Record<string, FieldValue>): Promise<AadhaarStarted>;
  /** Aadhaar eSign: the fate of the last attempt, recovered from the ESP when its answer was lost. */
  aadhaarStatus(): Promise<AadhaarStatus>;
  downloadUrl(documentId: string): string;
}

export function signerApi(token: string): SignerApi {
  const base = `${API_BASE}/signing/${encodeURIComponent(token)}`;
  const json = { 'content-type': 'application/json' };
  return {
    async view() {
      return (await (await request(base)).json()) as SignerView;
    },
    async documentBytes(documentId) {
      return new Uint8Array(await (await request(`${base}/documents/${documentId}`)).arrayBuffer());
    },
    async act(body) {
      return (await (
        await request(base, { method: 'POST', headers: json, body: JSON.stringify(body) })
      ).json()) as ActResult;
    },
    async prepared(documentId, fields) {
      const url = `${base}/documents/${documentId}/prepared`;
      const response =
        Object.keys(fields).length > 0
          ? await request(url, {
              method: 'POST',
              headers: json,
              body: JSON.stringify({ fields } satisfies PreparedBody),
            })
          : await request(url);
      return {
        bytes: new Uint8Array(await response.arrayBuffer()),
        fieldName: decodeURIComponent(response.headers.get('x-mohar-signature-field') ?? ''),
      };
    },
    async uploadSigned(documentId, bytes) {
      const body = new Blob([bytes as BlobPart], { type: 'application/pdf' });
      return (await (
        await request(`${base}/documents/${documentId}/signed`, {
          method: 'PUT',
          headers: { 'content-type': 'application/pdf' },
          body,
        })
      ).json()) as ActResult;
    },
    async startAadhaar(fields) {
      const body: AadhaarStartBody = { consent: true, fields };
      return (await (
        await request(`${base}/aadhaar`, { method: 'POST', headers: json, body: JSON.stringify(body) })
      ).json()) as AadhaarStarted;
    },
    async aadhaarStatus() {
      return (await (await request(`${base}/aadhaar/status`, { method: 'POST' })).json()) as AadhaarStatus;
    },
    async signWithTestCertificate() {
      return (await (await request(`${base}/mock-dsc`, { method: 'POST' })).json()) as ActResult;
    },
    downloadUrl(documentId) {
      return `${base}/documents/${documentId}/download`;
    },
  };
}
