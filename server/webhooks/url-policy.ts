/**
 * Which webhook URLs may be registered: https to a public address. The host is resolved now and every
 * address it names must be public (the delivery checks the connected address again, since DNS can change).
 * With MOHAR_WEBHOOK_ALLOW_PRIVATE=1 (LANs, tests) plain http and private or loopback targets are allowed.
 */
import { MoharError } from '../../common/errors.js';
import { classifyAddress } from '../net/address-policy.js';
import { literalAddress, systemResolver, type Resolver } from '../net/guarded-transport.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface UrlPolicyOptions {
  readonly allowPrivate: boolean;
  /** Name resolution; default the system resolver. */
  readonly resolve?: Resolver;
}

function refuse(code: string, message: string): MoharError {
  return new MoharError('invalid_webhook_url', `webhook_url: ${message}`, {
    errors: [{ path: '/webhook_url', code, message }],
  });
}

/** Returns the URL as it will be called, or throws invalid_webhook_url saying why not. */
export async function checkWebhookUrl(raw: string, options: UrlPolicyOptions): Promise<string> {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) throw refuse('too_long', `at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('not_a_url', 'is not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(options.allowPrivate && url.protocol === 'http:')) {
    throw refuse(
      'not_https',
      options.allowPrivate
        ? 'must start with https:// or http://'
        : `must start with https:// (got ${url.protocol}//; plain http is allowed only with MOHAR_WEBHOOK_ALLOW_PRIVATE=1)`,
    );
  }
  if (url.username !== '' || url.password !== '') throw refuse('credentials', 'must not carry a user name or password');
  if (url.hostname === '') throw refuse('no_host', 'has no host');
  url.hash = '';
  if (options.allowPrivate) return url.toString();

  const literal = literalAddress(url.hostname);
  if (literal !== undefined) {
    const category = classifyAddress(literal);
    if (category !== null) {
      throw refuse(
        'private_address',
        `${literal} is not a public address (${category}); webhooks go to public addresses only`,
      );
    }
    return url.toString();
  }
  let addresses: { address: string }[];
  try {
    addresses = await (options.resolve ?? systemResolver)(url.hostname);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw refuse(
      'unresolvable',
      `the host ${url.hostname} cannot be resolved${typeof code === 'string' ? ` (${code})` : ''}`,
    );
  }
  if (addresses.length === 0) throw refuse('unresolvable', `the host ${url.hostname} resolves to no address`);
  for (const { address } of addresses) {
    const category = classifyAddress(address);
    if (category !== null) {
      throw refuse(
        'private_address',
        `${url.hostname} resolves to ${address}, which is not a public address (${category}); webhooks go to public addresses only`,
      );
    }
  }
  return url.toString();
}
