/**
 * The PKCS#11 modules the desktop signer works with, opened once on first use (a module that fails to
 * load is reported and skipped, the others still work), and the tokens they see.
 */
import type { TokenInfo } from '../../common/desktop-bridge.js';
import {
  openModules,
  type ModuleLoadFailure,
  type Pkcs11Module,
  type TokenCertificate as NativeCertificate,
  type TokenInfo as NativeToken,
  type TokenSelector,
} from '../../native/index.js';
import { bridgeCertificates, bridgeSlotId, bridgeToken, moduleDisplayName } from './token-view.js';

export interface FoundToken {
  readonly module: Pkcs11Module;
  readonly token: NativeToken;
  readonly moduleName: string;
}

/** The native selector of a token: its serial, or slot + label for a token without one. */
export function selectorOf(token: NativeToken): TokenSelector {
  return token.serial.length > 0 ? { serial: token.serial } : { slotId: token.slotId, label: token.label };
}

export class TokenSet {
  private opened: Promise<Pkcs11Module[]> | undefined;
  private closed = false;

  constructor(
    private readonly paths: readonly string[],
    private readonly names: Readonly<Record<string, string>>,
    private readonly onModuleError: (failure: ModuleLoadFailure) => void,
  ) {}

  modules(): Promise<Pkcs11Module[]> {
    if (this.closed) return Promise.resolve([]);
    this.opened ??= openModules(this.paths).then(({ modules, failures }) => {
      for (const failure of failures) this.onModuleError(failure);
      return modules;
    });
    return this.opened;
  }

  /** Initialised tokens of every module; a module whose slot list cannot be read is skipped. */
  async tokens(): Promise<FoundToken[]> {
    const out: FoundToken[] = [];
    for (const module of await this.modules()) {
      let tokens: NativeToken[];
      try {
        tokens = await module.listTokens();
      } catch {
        continue;
      }
      const moduleName = moduleDisplayName(module.path, this.names);
      for (const token of tokens) if (token.initialized) out.push({ module, token, moduleName });
    }
    return out;
  }

  async find(slotId: string): Promise<FoundToken | undefined> {
    return (await this.tokens()).find((t) => bridgeSlotId(t.token) === slotId);
  }

  /** Every certificate on the token, keys matched without logging in (CA certificates included). */
  certificates(found: FoundToken): Promise<NativeCertificate[]> {
    return found.module.listCertificates(selectorOf(found.token), { includeWithoutKey: true });
  }

  /** The bridge's token list; a token that vanishes while its certificates are read is left out. */
  async list(now: Date): Promise<TokenInfo[]> {
    const out: TokenInfo[] = [];
    for (const found of await this.tokens()) {
      let certificates: NativeCertificate[];
      try {
        certificates = await this.certificates(found);
      } catch {
        continue;
      }
      out.push(
        bridgeToken(
          found.token,
          bridgeCertificates(certificates, now).map((c) => c.view),
          found.moduleName,
        ),
      );
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    const modules = this.opened ? await this.opened : [];
    this.opened = undefined;
    await Promise.all(modules.map((m) => m.close()));
  }
}
