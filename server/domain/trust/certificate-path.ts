/**
 * The I/O half of DSC chain building: pdf/cms/chain.ts builds paths over the certificates it is given;
 * here a missing issuer is fetched from the certificate's AIA caIssuers URLs (untrusted input, so through
 * the guarded transport) and the path is built again, a few rounds at most.
 */
import {
  accessUrls,
  buildCertificatePath,
  OID,
  parseFetchedCertificates,
  type CertificatePath,
  type HttpTransport,
} from '../../../pdf/index.js';

const MAX_FETCH_ROUNDS = 4;

export interface FetchedPath {
  readonly built: CertificatePath;
  /** URLs tried, with what went wrong when something did. */
  readonly fetched: { url: string; problem: string | null }[];
}

export async function buildPathFetchingIssuers(
  leaf: Uint8Array,
  carried: readonly Uint8Array[],
  anchors: readonly Uint8Array[],
  transport: HttpTransport,
): Promise<FetchedPath> {
  const pool = [...carried];
  const fetched: FetchedPath['fetched'] = [];
  let built = buildCertificatePath(leaf, pool, anchors);
  for (let round = 0; round < MAX_FETCH_ROUNDS && built.missingIssuerOf; round++) {
    const urls = accessUrls(built.missingIssuerOf, OID.adCaIssuers).filter((u) => !fetched.some((f) => f.url === u));
    if (urls.length === 0) break;
    for (const url of urls) {
      try {
        pool.push(...parseFetchedCertificates(await transport({ url, accept: 'application/pkix-cert' })));
        fetched.push({ url, problem: null });
      } catch (error) {
        fetched.push({ url, problem: (error as Error).message });
      }
    }
    built = buildCertificatePath(leaf, pool, anchors);
  }
  return { built, fetched };
}
