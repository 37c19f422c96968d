/**
 * Which ESP an envelope's Aadhaar eSign goes to, decided per envelope by its data mode (issue 18, sandbox):
 *
 * - live data: the ESP of MOHAR_ESIGN_* (none configured: 422 aadhaar_not_configured); signer certificates
 *   must chain to a CCA root or a MOHAR_DSC_TRUST_ANCHORS anchor;
 * - test data (made with a qsk_test_ key): always the ESP simulator built into this server
 *   (aadhaar/sandbox-esp.ts), never a real ESP, even when one is configured: a test envelope has no legal
 *   effect and must not spend an ESP transaction or an Aadhaar OTP. Its certificates chain to the simulated
 *   root only. MOHAR_ESIGN_SANDBOX=0 turns this off (test data is then refused).
 *
 * The ASP flow (start-esign, esign-request, accept-response, recover-status) reads its settings here
 * instead of ctx.config.esign.
 */
import { MoharError } from '../../../common/errors.js';
import { parseXml } from '../../aadhaar/xml.js';
import { sandboxEsp } from '../../aadhaar/sandbox-esp.js';
import type { EspSimulator } from '../../aadhaar/simulator/esp.js';
import type { Config } from '../../config.js';
import type { EsignConfig } from '../../config-esign.js';
import type { DataMode } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { dscTrustAnchors } from '../trust/anchors.js';

export interface EsignSettings extends EsignConfig {
  /** true: the built-in ESP simulator (test data). */
  readonly sandbox: boolean;
  /** The roots an eSign signer certificate of this ESP must chain to. */
  readonly trustAnchors: readonly Uint8Array[];
}

/** Whether `aadhaar` recipients may be used on data of this mode (availability.ts asks at create, add, patch, send). */
export function aadhaarAvailableFor(config: Pick<Config, 'esign' | 'esignSandbox'>, mode: string | undefined): boolean {
  return mode === 'test' ? config.esignSandbox : config.esign !== undefined;
}

const live = new WeakMap<Config, EsignSettings>();
const sandbox = new WeakMap<Config, Promise<EsignSettings>>();

function notConfigured(mode: string | undefined): MoharError {
  return mode === 'test'
    ? new MoharError(
        'aadhaar_not_configured',
        'Aadhaar eSign for test data uses the built-in ESP simulator, which is turned off on this server (MOHAR_ESIGN_SANDBOX=0)',
      )
    : new MoharError('aadhaar_not_configured', 'Aadhaar eSign is not configured on this server');
}

/** The built-in ESP simulator of this server (started on first use), for the routes that serve it. */
export async function sandboxSimulator(ctx: Context): Promise<EspSimulator> {
  if (!ctx.config.esignSandbox) throw notConfigured('test');
  return (await sandboxEsp(ctx.config, { dataDir: ctx.config.dataDir, baseUrl: ctx.config.baseUrl, now: ctx.now })).esp;
}

/** The eSign settings for data of this mode; throws 422 aadhaar_not_configured when there are none. */
export async function esignForMode(ctx: Context, mode: DataMode | string | undefined): Promise<EsignSettings> {
  const config = ctx.config;
  if (!aadhaarAvailableFor(config, mode)) throw notConfigured(mode);
  if (mode === 'test') {
    let settings = sandbox.get(config);
    if (!settings) {
      settings = sandboxEsp(config, { dataDir: config.dataDir, baseUrl: config.baseUrl, now: ctx.now }).then((s) => ({
        ...s.settings,
        sandbox: true,
        trustAnchors: [s.rootDer],
      }));
      sandbox.set(config, settings);
      settings.catch(() => sandbox.delete(config));
    }
    return settings;
  }
  // The same object every time: the ASP key is loaded once per settings object (asp-signer.ts).
  let settings = live.get(config);
  if (!settings) {
    settings = { ...config.esign!, sandbox: false, trustAnchors: dscTrustAnchors(config) };
    live.set(config, settings);
  }
  return settings;
}

/** The eSign settings of an envelope (by its mode). */
export async function esignForEnvelope(ctx: Context, envelopeId: string): Promise<EsignSettings> {
  const envelope = await ctx.db.selectFrom('envelopes').select('mode').where('id', '=', envelopeId).executeTakeFirst();
  return esignForMode(ctx, envelope?.mode ?? 'live');
}

/**
 * The settings to verify an EsignResp with, chosen by the transaction it names (its txn attribute, read
 * before the signature is checked: it only picks which pinned certificate to check against, and the txn
 * the checked element names is that same attribute). A response for a live transaction is checked against
 * the real ESP's certificate only, so nothing the built-in simulator signs can complete a live act. An
 * unknown or unreadable txn gets the live settings (or the sandbox's when there are none) and fails there.
 */
export async function esignForResponse(ctx: Context, xml: string): Promise<EsignSettings> {
  let txn = '';
  try {
    txn = parseXml(xml).documentElement?.getAttribute('txn') ?? '';
  } catch {
    // Unreadable XML: verification refuses it with its own reason.
  }
  const row =
    txn === ''
      ? undefined
      : await ctx.db
          .selectFrom('esign_transactions')
          .innerJoin('envelopes', 'envelopes.id', 'esign_transactions.envelope_id')
          .select('envelopes.mode')
          .where('esign_transactions.id', '=', txn)
          .executeTakeFirst();
  if (row) return esignForMode(ctx, row.mode);
  return esignForMode(ctx, ctx.config.esign === undefined && ctx.config.esignSandbox ? 'test' : 'live');
}
