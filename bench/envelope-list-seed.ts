/**
 * Seeds N envelopes for one account straight into the tables (multi-row INSERTs in transactions of a few
 * thousand rows), with what the API would have written: two recipients each and the search rows
 * (search_text, envelope_search_terms) from the same code the API uses. The data is made to look like an
 * office's: a few dozen document kinds, a few hundred first and last names, a handful of mail domains,
 * statuses mostly completed and sent, some envelopes from templates and bulk sends, two years of history.
 */
import type { Kysely } from 'kysely';
import { searchRowsOf } from '../server/storage/search-terms.js';
import type { Database, EnvelopeSearchTermsTable, RecipientsTable } from '../server/storage/schema.js';

export const KINDS = [
  'Lease agreement',
  'NDA',
  'Sale deed',
  'Employment offer',
  'Loan agreement',
  'Vendor contract',
  'Rent receipt',
  'Power of attorney',
  'Service agreement',
  'Purchase order',
  'Consent form',
  'Invoice approval',
  'Gift deed',
  'Partnership deed',
  'Leave licence',
  'Board resolution',
  'Quotation',
  'Affidavit',
  'Indemnity bond',
  'Franchise agreement',
];
const FIRST = [
  'asha',
  'ravi',
  'vikram',
  'meera',
  'sita',
  'arjun',
  'priya',
  'rahul',
  'kiran',
  'neha',
  'anil',
  'sunita',
  'deepak',
  'pooja',
  'manoj',
  'kavita',
  'suresh',
  'anita',
  'rajesh',
  'lakshmi',
  'amit',
  'divya',
  'sanjay',
  'rekha',
  'vijay',
  'geeta',
  'ashok',
  'usha',
  'nitin',
  'seema',
];
const LAST = [
  'rao',
  'shah',
  'iyer',
  'kumar',
  'sharma',
  'verma',
  'gupta',
  'singh',
  'patel',
  'reddy',
  'nair',
  'menon',
  'das',
  'bose',
  'joshi',
  'mehta',
  'desai',
  'kulkarni',
  'pillai',
  'chopra',
  'malhotra',
  'bhat',
  'naidu',
  'saxena',
  'agarwal',
  'mishra',
  'pandey',
  'tiwari',
  'yadav',
  'jain',
];
const DOMAINS = [
  'example.com',
  'mail.example.in',
  'corp.example.org',
  'firm.example.net',
  'bank.example.co.in',
  'legal.example.com',
  'example.org',
  'works.example.in',
];
/** Cumulative share of each status (completed and sent dominate a real office's list). */
const STATUSES: readonly [string, number][] = [
  ['completed', 0.55],
  ['sent', 0.8],
  ['draft', 0.9],
  ['voided', 0.94],
  ['declined', 0.97],
  ['expired', 1],
];

export const TEMPLATE_IDS = Array.from(
  { length: 10 },
  (_, i) => `0193f0e2-6c1a-7b3e-9d2f-00000000${String(i).padStart(4, '0')}`,
);
export const BULK_IDS = Array.from(
  { length: 5 },
  (_, i) => `0193f0e2-6c1a-7b3e-9d2f-b0000000${String(i).padStart(4, '0')}`,
);

/** A small deterministic generator, so runs on both databases see the same data. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
const title = (s: string) => s.replace(/\b\w/g, (c) => c.toUpperCase());

export interface SeededEnvelope {
  readonly id: string;
  readonly title: string;
  readonly externalId: string | null;
  readonly emails: readonly string[];
}

function uuidOf(i: number, tag: string, kind: 'e' | 'r'): string {
  const hex = i.toString(16).padStart(12, '0');
  return `${tag}-0000-7000-${kind === 'e' ? '8000' : '8001'}-${hex}`;
}

/** Envelope i of N: created 10 minutes after envelope i-1, two years back from `now`. */
function envelopeRows(
  accountId: string,
  i: number,
  count: number,
  now: number,
  r: () => number,
  origins: boolean,
  creators: readonly string[],
) {
  const id = uuidOf(i, accountId.slice(0, 8), 'e');
  const created = new Date(now - (count - i) * 600_000 - Math.floor(r() * 1000)).toISOString();
  const roll = r();
  const status = STATUSES.find(([, share]) => roll < share)![0];
  const people = [0, 1].map(() => ({ first: pick(r, FIRST), last: pick(r, LAST) }));
  const kind = pick(r, KINDS);
  const envelope = {
    id,
    account_id: accountId,
    title: `${kind} ${title(people[0]!.first)} ${title(people[0]!.last)} ${1000 + (i % 9000)}`,
    status,
    external_id: r() < 0.6 ? `INV-${created.slice(0, 4)}-${String(i).padStart(6, '0')}` : null,
    routing_order: 'sequential',
    message: null,
    expire_in_days: 30,
    redirect_url: null,
    metadata: null,
    created_at: created,
    updated_at: created,
    sent_at: status === 'draft' ? null : created,
    completed_at: status === 'completed' ? created : null,
    expires_at: null,
    status_reason: null,
    pades_level: status === 'completed' ? 'B-T' : null,
    certificate_sha256: null,
    ...(origins && r() < 0.2
      ? { template_id: pick(r, TEMPLATE_IDS), template_version: 1 }
      : { template_id: null, template_version: null }),
    // (bulk_send_id, row_index) is unique: envelope i is row i of its batch.
    ...(origins && r() < 0.1
      ? { bulk_send_id: pick(r, BULK_IDS), row_index: i }
      : { bulk_send_id: null, row_index: null }),
    // Issue 15: creators by position (not by r(), so the rest of the data stays as before): of every 5, one per
    // creator, the rest API keys.
    created_by_user_id: creators[i % 5] ?? null,
  };
  const recipients: RecipientsTable[] = people.map((p, n) => ({
    id: uuidOf(i * 2 + n, accountId.slice(0, 8), 'r'),
    envelope_id: id,
    name: `${title(p.first)} ${title(p.last)}`,
    email: `${p.first}.${p.last}${Math.floor(r() * 100)}@${pick(r, DOMAINS)}`,
    role: 'signer',
    signature_method: 'electronic',
    sequence: n + 1,
    status: status === 'completed' ? 'signed' : status === 'draft' ? 'created' : n === 0 ? 'signed' : 'active',
    position: n + 1,
    created_at: created,
    viewed_at: null,
    acted_at: null,
    decline_reason: null,
    act_details: null,
    reminded_at: null,
    prepared_sha256: null,
  }));
  const search = searchRowsOf({ ...envelope, recipients });
  return { envelope: { ...envelope, search_text: search.searchText }, recipients, terms: search.terms };
}

async function insertChunks<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  rows: readonly object[],
  perStatement: number,
): Promise<void> {
  for (let i = 0; i < rows.length; i += perStatement) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + perStatement) as never)
      .execute();
  }
}

/**
 * Inserts `count` envelopes (with template and bulk send origins when `origins`; of every 5, one made by each of
 * `creators`, the others by API key); returns every 97th to search for.
 */
export async function seedEnvelopes(
  db: Kysely<Database>,
  accountId: string,
  count: number,
  progress: (done: number) => void,
  origins = true,
  creators: readonly string[] = [],
): Promise<SeededEnvelope[]> {
  const r = random(count);
  const now = Date.now();
  const sample: SeededEnvelope[] = [];
  const batch = 2000;
  for (let start = 0; start < count; start += batch) {
    const envelopes: ReturnType<typeof envelopeRows>['envelope'][] = [];
    const recipients: RecipientsTable[] = [];
    const terms: EnvelopeSearchTermsTable[] = [];
    for (let i = start; i < Math.min(count, start + batch); i++) {
      const rows = envelopeRows(accountId, i, count, now, r, origins, creators);
      envelopes.push(rows.envelope);
      recipients.push(...rows.recipients);
      terms.push(...rows.terms);
      if (i % 97 === 0) {
        sample.push({
          id: rows.envelope.id,
          title: rows.envelope.title,
          externalId: rows.envelope.external_id,
          emails: rows.recipients.map((x) => x.email),
        });
      }
    }
    // Statement sizes stay under both databases' bound-parameter limits.
    await db.transaction().execute(async (trx) => {
      await insertChunks(trx, 'envelopes', envelopes, 500);
      await insertChunks(trx, 'recipients', recipients, 800);
      await insertChunks(trx, 'envelope_search_terms', terms, 5000);
    });
    progress(Math.min(count, start + batch));
  }
  return sample;
}
