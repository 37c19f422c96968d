/**
 * The server side of a batch: from a signing link (<base>/sign/<token>) to the signer API
 * (<base>/backend/api/v1/signing/<token>), the documents this DSC signer still has to sign, their prepared bytes
 * and signature field, and the upload of the signed bytes. The HTTP client is a port so tests use the server's
 * inject and the desktop uses fetch.
 */
import { createHash } from 'node:crypto';
import { API_BASE } from '../../common/api-paths.js';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
}

export interface BatchHttp {
  request(method: 'GET' | 'PUT', url: string, body?: Buffer): Promise<HttpAnswer>;
}

/** A server answer that is not a success: its problem+json code and detail. */
export class ServerRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ServerRefusal';
  }
}

/** The signer API base of a signing link, or null when the URL is not one (<base>/sign/<token>). */
export function signerApiOf(signingUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(signingUrl);
  } catch {
    return null;
  }
  const match = /^((?:\/[A-Za-z0-9._~%-]+)*)\/sign\/([A-Za-z0-9_-]{16,256})\/?$/.exec(url.pathname);
  if (!match || (url.protocol !== 'https:' && url.protocol !== 'http:')) return null;
  return `${url.origin}${match[1]}${API_BASE}/signing/${match[2]}`;
}

export function fetchHttp(fetchImpl: typeof fetch = fetch): BatchHttp {
  return {
    async request(method, url, body) {
      const response = await fetchImpl(url, {
        method,
        ...(body ? { body: new Uint8Array(body), headers: { 'content-type': 'application/pdf' } } : {}),
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => {
        headers[key] = value;
      });
      return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()) };
    },
  };
}

function refusal(answer: HttpAnswer): ServerRefusal {
  let problem: Record<string, unknown> = {};
  try {
    problem = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    // not problem+json (a proxy's page)
  }
  const code = typeof problem.code === 'string' ? problem.code : 'http_error';
  const detail = typeof problem.detail === 'string' ? problem.detail : `HTTP ${answer.status}`;
  return new ServerRefusal(answer.status, code, detail);
}

async function ok(answer: Promise<HttpAnswer>): Promise<HttpAnswer> {
  const a = await answer;
  if (a.status < 200 || a.status > 299) throw refusal(a);
  return a;
}

interface SignerViewJson {
  envelope: { title: string; status: string };
  recipient: { recipient_id: string; signature_method: string; status: string };
  action: string;
  fields: { document_id: string; recipient_id: string; pdf_signature_field: string | null }[];
  documents: { document_id: string; filename: string }[];
}

export interface PendingDocument {
  readonly documentId: string;
  readonly name: string;
}

/** What the link asks of this signer: the DSC documents to sign, or why there is nothing to sign. */
export type LinkWork =
  | { kind: 'sign'; envelopeTitle: string; documents: PendingDocument[] }
  | { kind: 'nothing'; envelopeTitle: string; code: string; reason: string };

export async function linkWork(http: BatchHttp, api: string): Promise<LinkWork> {
  const view = JSON.parse((await ok(http.request('GET', api))).body.toString('utf8')) as SignerViewJson;
  const title = view.envelope.title;
  if (view.recipient.signature_method !== 'dsc') {
    return {
      kind: 'nothing',
      envelopeTitle: title,
      code: 'not_dsc',
      reason: 'This link is not for a USB token (DSC) signature.',
    };
  }
  if (view.action !== 'sign') {
    return {
      kind: 'nothing',
      envelopeTitle: title,
      code: `action_${view.action}`,
      reason:
        view.action === 'done'
          ? 'Already signed.'
          : view.action === 'wait'
            ? 'Not your turn yet: others sign before you.'
            : `Nothing to sign (the envelope is ${view.envelope.status}).`,
    };
  }
  const mine = new Set(
    view.fields
      .filter((f) => f.recipient_id === view.recipient.recipient_id && f.pdf_signature_field !== null)
      .map((f) => f.document_id),
  );
  // No signature field placed for this signer: the server adds one on the first document (as the page does).
  const documents = view.documents.filter((d) => mine.size === 0 || mine.has(d.document_id));
  return {
    kind: 'sign',
    envelopeTitle: title,
    documents: (mine.size === 0 ? documents.slice(0, 1) : documents).map((d) => ({
      documentId: d.document_id,
      name: d.filename,
    })),
  };
}

export interface PreparedDocument {
  readonly bytes: Buffer;
  readonly fieldName: string;
  readonly sha256: string;
}

export async function fetchPrepared(http: BatchHttp, api: string, documentId: string): Promise<PreparedDocument> {
  const answer = await ok(http.request('GET', `${api}/documents/${encodeURIComponent(documentId)}/prepared`));
  const field = answer.headers['x-mohar-signature-field'];
  if (!field) throw new ServerRefusal(answer.status, 'no_signature_field', 'The server named no signature field.');
  return {
    bytes: answer.body,
    fieldName: decodeURIComponent(field),
    sha256: createHash('sha256').update(answer.body).digest('hex'),
  };
}

/** PUT …/signed; the envelope's status after it. */
export async function uploadSigned(http: BatchHttp, api: string, documentId: string, signed: Buffer): Promise<string> {
  const answer = await ok(http.request('PUT', `${api}/documents/${encodeURIComponent(documentId)}/signed`, signed));
  const json = JSON.parse(answer.body.toString('utf8')) as { envelope_status?: unknown };
  return typeof json.envelope_status === 'string' ? json.envelope_status : 'unknown';
}
