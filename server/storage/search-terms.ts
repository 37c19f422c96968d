/**
 * What `GET /envelopes?q=` searches: title, external_id, recipient names and e-mails, case-insensitive,
 * matching from the start of a word ("asha" finds "Asha Rao" and "asha.rao@example.com", "rao@ex" finds
 * the e-mail, "sha" finds neither). Word-start matching is what lets an index answer on both databases
 * without an extension (see migration 0013_envelope_list):
 *
 * - `search_text`: every text normalized (lower case, NFKC) with WORD_MARK before each word start, one
 *   line per text. A query normalized the same way matches where `search_text LIKE '%' || q || '%'`.
 * - terms: every word-start suffix of every text (unmarked), cut to TERM_LENGTH characters. A query
 *   (its word-start part, cut the same way) is a prefix of at least one term of each envelope it matches,
 *   so a prefix range on the terms gives a superset of the matches, which the LIKE then confirms.
 */
import type { EnvelopeSearchTermsTable } from './schema.js';

/** Marks a word start inside search_text; never typed by anyone. */
export const WORD_MARK = '\u0001';
/** Terms are cut here: longer queries probe with their first TERM_LENGTH characters. */
export const TERM_LENGTH = 32;

const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

export interface SearchSource {
  readonly id: string;
  readonly account_id: string;
  readonly title: string;
  readonly external_id: string | null;
  readonly recipients: readonly { readonly name: string; readonly email: string }[];
}

/** Lower case, compatibility forms folded, whitespace runs as one space (so a line never breaks). */
export function foldText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** Code points of the folded text, with whether each one starts a word. */
function wordStarts(folded: string): { chars: string[]; starts: boolean[] } {
  const chars = Array.from(folded);
  const starts = chars.map((c, i) => WORD_CHAR.test(c) && (i === 0 || !WORD_CHAR.test(chars[i - 1]!)));
  return { chars, starts };
}

/** The folded text with WORD_MARK before each word start. */
export function markText(text: string): string {
  const { chars, starts } = wordStarts(foldText(text));
  return chars.map((c, i) => (starts[i] ? WORD_MARK + c : c)).join('');
}

function textsOf(source: SearchSource): string[] {
  const texts = [source.title, source.external_id ?? ''];
  for (const r of source.recipients) texts.push(r.name, r.email);
  return texts.filter((t) => t.trim() !== '');
}

/**
 * The terms of a search_text: from each WORD_MARK, the rest of its line without marks, cut to TERM_LENGTH.
 * Derived from search_text alone, so the terms stored for an envelope can be found again (and deleted by
 * their primary key) from the search_text stored beside them.
 */
export function termsOf(searchText: string): string[] {
  const unique = new Set<string>();
  for (const line of searchText.split('\n')) {
    const chars = Array.from(line);
    chars.forEach((c, i) => {
      if (c !== WORD_MARK) return;
      const term: string[] = [];
      for (let j = i + 1; j < chars.length && term.length < TERM_LENGTH; j++) {
        if (chars[j] !== WORD_MARK) term.push(chars[j]!);
      }
      unique.add(term.join(''));
    });
  }
  return [...unique];
}

/** envelopes.search_text and the envelope_search_terms rows of one envelope. */
export function searchRowsOf(source: SearchSource): { searchText: string; terms: EnvelopeSearchTermsTable[] } {
  const searchText = textsOf(source).map(markText).join('\n');
  return {
    searchText,
    terms: termsOf(searchText).map((term) => ({ account_id: source.account_id, term, envelope_id: source.id })),
  };
}

export interface SearchQuery {
  /** Matched against search_text with LIKE (ESCAPE '\'): the marked query between two %. */
  readonly like: string;
  /** The prefix range on terms; null when the query has no word character (then only the LIKE can answer). */
  readonly probe: { readonly from: string; readonly to: string } | null;
}

/** How a `q` is looked up, or null when it is blank. */
export function searchQuery(q: string | undefined): SearchQuery | null {
  if (q === undefined || foldText(q) === '') return null;
  const marked = markText(q);
  const like = `%${marked.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const { chars, starts } = wordStarts(foldText(q));
  const first = starts.indexOf(true);
  if (first === -1) return { like, probe: null };
  const from = chars.slice(first, first + TERM_LENGTH).join('');
  // Bytewise order (SQLite's default, COLLATE "C" on PostgreSQL): U+10FFFF sorts after every other code point.
  return { like, probe: { from, to: `${from}\u{10FFFF}` } };
}
