/**
 * The domain's ways out to the network, handed in like the seal (domain/context.ts): one HttpTransport per
 * kind of destination, built once when the runtime opens (start.ts openRuntime). Domain code never builds
 * a transport itself, so a test or another host can hand in its own.
 */
import type { HttpTransport } from '../../pdf/index.js';
import type { Config } from '../config.js';
import { guardedTransport } from './guarded-transport.js';
import { fetchTransport } from './http-transport.js';

export interface Transports {
  /** The timestamp authority the operator configured (MOHAR_TSA_URL): a trusted destination. */
  readonly timestamps: HttpTransport;
  /**
   * OCSP, CRL and caIssuers URLs read from certificates, i.e. from untrusted input: public addresses only
   * unless MOHAR_FETCH_ALLOW_PRIVATE (net/guarded-transport.ts).
   */
  readonly certificateUrls: HttpTransport;
  /** The eSign service provider's status service (MOHAR_ESIGN_STATUS_URL): small answers, a shorter deadline. */
  readonly esignStatus: HttpTransport;
}

export function defaultTransports(config: Pick<Config, 'fetchAllowPrivate'>): Transports {
  return {
    timestamps: fetchTransport(),
    certificateUrls: guardedTransport({ allowPrivate: config.fetchAllowPrivate }),
    esignStatus: fetchTransport({ timeoutMs: 15_000, maxBytes: 1024 * 1024 }),
  };
}
