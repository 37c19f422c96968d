/**
 * signed_doc_url: a link that downloads a completed legacy document without the API key, so the caller can
 * hand it on. The token is the document id and an expiry time encrypted and authenticated with the
 * installation's secret box (AES-256-GCM, server/seal/secret-box.ts): unguessable, tamper-evident and
 * stateless, so any instance sharing MOHAR_SECRET_KEY accepts it and nothing is written per status call.
 * A link lives DOWNLOAD_LINK_SECONDS; every status call mints a fresh one.
 */
import { MoharError } from '../../../common/errors.js';
import type { Config } from '../../config.js';
import { openSecretBox, type SecretBox } from '../../seal/secret-box.js';
import type { Context } from '../context.js';

export const DOWNLOAD_LINK_SECONDS = 3600;
/** Additional authenticated data: a token made for another purpose of the secret box does not open here. */
const PURPOSE = 'legacy signed_doc_url v1';

const boxes = new WeakMap<Config, Promise<SecretBox>>();

function boxFor(config: Config): Promise<SecretBox> {
  let box = boxes.get(config);
  if (!box) {
    box = openSecretBox(config);
    boxes.set(config, box);
    box.catch(() => boxes.delete(config));
  }
  return box;
}

export async function mintDownloadToken(ctx: Context, documentId: number): Promise<{ token: string; expiresAt: Date }> {
  const expiresAt = new Date(ctx.now().getTime() + DOWNLOAD_LINK_SECONDS * 1000);
  const box = await boxFor(ctx.config);
  return { token: box.seal(`${documentId}.${expiresAt.getTime()}`, PURPOSE), expiresAt };
}

/** The document id a token grants, or download_link_expired (also for forged or mangled tokens: no oracle). */
export async function openDownloadToken(ctx: Context, token: string): Promise<number> {
  const refused = new MoharError(
    'download_link_expired',
    'this download link has expired or is not valid; get a fresh signed_doc_url from the status call',
  );
  let plain: string;
  try {
    plain = (await boxFor(ctx.config)).open(token, PURPOSE).toString('utf8');
  } catch {
    throw refused;
  }
  const match = /^(\d+)\.(\d+)$/.exec(plain);
  if (!match || Number(match[2]) <= ctx.now().getTime()) throw refused;
  return Number(match[1]);
}
