/**
 * `mohar sign IN OUT`: one PAdES signature with a USB token key (--module) or a PKCS#12 file (--p12).
 * The PIN or passphrase is read from a prompt or stdin, never from argv.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { MoharError } from '../common/errors.js';
import { Pkcs11Module, tokenSigner } from '../native/index.js';
import {
  checkSignable,
  PADES_LEVELS,
  signPades,
  softwareSigner,
  type PadesTarget,
  type SignatureFieldChoice,
  type SignatureProvider,
} from '../pdf/index.js';
import type { Config } from '../server/config.js';
import { fetchTransport } from '../server/net/http-transport.js';
import { readSecret } from './secret-input.js';

export interface SignOptions {
  module?: string;
  token?: string;
  certId?: string;
  p12?: string;
  field?: string;
  page?: string;
  rect?: string;
  reason?: string;
  location?: string;
  level: string;
  tsa?: string;
}

function usage(message: string): MoharError {
  return new MoharError('validation_failed', message);
}

/** --field NAME, or --page N --rect x1,y1,x2,y2 (points from the top-left of the page as displayed), or invisible. */
export function fieldChoice(options: Pick<SignOptions, 'field' | 'page' | 'rect'>): SignatureFieldChoice {
  if (options.field !== undefined) {
    if (options.page !== undefined || options.rect !== undefined) {
      throw usage('use either --field or --page with --rect');
    }
    return { name: options.field };
  }
  if (options.page === undefined && options.rect === undefined) return { invisible: true };
  const page = Number(options.page ?? 1);
  const corners = (options.rect ?? '').split(',').map(Number);
  if (!Number.isInteger(page) || page < 1) throw usage('--page must be a page number from 1');
  if (corners.length !== 4 || corners.some((n) => !Number.isFinite(n))) {
    throw usage('--rect must be x1,y1,x2,y2 in points from the top-left corner of the page');
  }
  const [x1, y1, x2, y2] = corners as [number, number, number, number];
  if (x2 <= x1 || y2 <= y1) throw usage('--rect needs x2 > x1 and y2 > y1');
  return { page, rect: { x: x1, y: y1, width: x2 - x1, height: y2 - y1 } };
}

async function openSigner(options: SignOptions): Promise<{ signer: SignatureProvider; close: () => Promise<void> }> {
  if ((options.module === undefined) === (options.p12 === undefined)) {
    throw usage('name exactly one key: --module PATH (a USB token) or --p12 FILE');
  }
  if (options.p12 !== undefined) {
    const pkcs12 = await readFile(options.p12);
    const passphrase = await readSecret(`Passphrase for ${options.p12}: `);
    return { signer: await softwareSigner({ pkcs12, passphrase }), close: async () => undefined };
  }
  const module = await Pkcs11Module.open(options.module!);
  try {
    const tokens = (await module.listTokens()).filter((t) => t.initialized);
    const token = tokens.find((t) => options.token === undefined || t.label === options.token);
    if (!token) {
      throw new MoharError(
        'token_not_present',
        options.token
          ? `no token labelled "${options.token}" in ${options.module}; found: ${tokens.map((t) => t.label).join(', ') || 'none'}`
          : `no token in ${options.module}`,
      );
    }
    const withKeys = (await module.listCertificates({ serial: token.serial })).filter((c) => c.privateKey !== null);
    const certId = options.certId ?? (withKeys.length === 1 ? (withKeys[0]!.certId ?? undefined) : undefined);
    if (certId === undefined) {
      throw usage(
        `choose the certificate with --cert-id; the token holds: ${withKeys.map((c) => `${c.certId} (${c.subjectCommonName ?? c.subject})`).join(', ') || 'no certificate with a key'}`,
      );
    }
    const pin = await readSecret(`PIN for token "${token.label}": `);
    const signer = await tokenSigner({ module, token: { serial: token.serial }, certId, pin });
    return { signer, close: () => module.close() };
  } catch (error) {
    await module.close();
    throw error;
  }
}

export async function signCommand(config: Config, input: string, output: string, options: SignOptions): Promise<void> {
  if (!(PADES_LEVELS as readonly string[]).includes(options.level)) {
    throw usage(`--level must be one of ${PADES_LEVELS.join(', ')}`);
  }
  const field = fieldChoice(options);
  const bytes = await readFile(input);
  checkSignable(bytes); // encrypted, DocMDP P=1, signed but damaged: refused before the PIN is asked
  const { signer, close } = await openSigner(options);
  try {
    const tsaUrl = options.tsa ?? config.tsaUrl;
    const result = await signPades(bytes, signer, {
      level: options.level as PadesTarget,
      field,
      signingTime: new Date(),
      ...(options.reason ? { reason: options.reason } : {}),
      ...(options.location ? { location: options.location } : {}),
      ...(tsaUrl ? { tsaUrl, transport: fetchTransport() } : {}),
    });
    // The pieces one after the other: the input and the new revision, without joining a large file in memory.
    await writeFile(output, result.pieces);
    process.stdout.write(`signed field "${result.fieldName}" (PAdES ${result.level}); wrote ${output}\n`);
  } finally {
    await close();
  }
}
