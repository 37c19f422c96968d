/**
 * The console words every refusal (issue 28, point 6): each code of the ErrorCode union in common/errors.ts has
 * a sentence in English and in Hindi (the Record type makes a missing one a compile error; this test names the
 * code when someone loosens the type), and the server's detail is only ever the secondary line.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

type Language = 'en' | 'hi';
interface Refusal {
  words: string;
  detail: string | null;
}
interface RefusalModule {
  describeRefusal(error: unknown, language: Language, networkText: string): Refusal;
}
interface RefusalStrings {
  REFUSALS: Record<Language, Record<string, string>>;
  UNKNOWN_REFUSAL: Record<Language, string>;
}
interface ApiModule {
  ApiError: new (status: number, code: string, message: string) => Error;
}

// The renderer is type-checked by its own tsconfig (bundler resolution); loaded by URL here so the server's
// tsconfig does not check it a second time under node16 resolution.
const load = async <T>(path: string): Promise<T> =>
  (await import(new URL(`../../renderer/src/console/${path}`, import.meta.url).href)) as T;
const { describeRefusal } = await load<RefusalModule>('components/refusal.ts');
const { REFUSALS, UNKNOWN_REFUSAL } = await load<RefusalStrings>('strings/refusals/index.ts');
const { ApiError } = await load<ApiModule>('api.ts');

/** The members of the ErrorCode union, read from its source (the union exists only for the compiler). */
function errorCodes(): string[] {
  const source = readFileSync(new URL('../../common/errors.ts', import.meta.url), 'utf8');
  const union = /export type ErrorCode =([^;]+);/.exec(source)?.[1] ?? '';
  return [...union.matchAll(/\|\s*'([a-z0-9_]+)'/g)].map((m) => m[1] ?? '');
}

const DEVANAGARI = /[\u0900-\u097F]/;

test('every code of the ErrorCode union has a sentence in English and in Hindi', () => {
  const codes = errorCodes();
  assert.ok(codes.length > 100, `read ${codes.length} codes from common/errors.ts`);
  const missingEn = codes.filter((code) => !REFUSALS.en[code]?.trim());
  const missingHi = codes.filter((code) => !REFUSALS.hi[code] || !DEVANAGARI.test(REFUSALS.hi[code] ?? ''));
  assert.deepEqual(missingEn, [], 'codes without English words');
  assert.deepEqual(missingHi, [], 'codes without Hindi words');
});

test('storage_full, added to the union on another branch, is worded already', () => {
  assert.match(REFUSALS.en.storage_full ?? '', /disk is full/);
  assert.match(REFUSALS.hi.storage_full ?? '', DEVANAGARI);
});

test('the console’s words come first, the server’s detail as the secondary line', () => {
  const detail = 'the envelope cannot be sent: signer Asha has no Signature field (field_type 1)';
  const refusal = describeRefusal(new ApiError(422, 'envelope_incomplete', detail), 'en', 'offline');
  assert.deepEqual(refusal, { words: REFUSALS.en.envelope_incomplete, detail });
  const inHindi = describeRefusal(new ApiError(403, 'insufficient_role', 'only an admin…'), 'hi', 'offline');
  assert.equal(inHindi.words, REFUSALS.hi.insufficient_role);
  assert.equal(inHindi.detail, 'only an admin…');
});

test('a network failure, an unknown code and a page’s own message', () => {
  const network = describeRefusal(new ApiError(0, 'network_error', 'Failed to fetch'), 'hi', 'सर्वर तक नहीं…');
  assert.deepEqual(network, { words: 'सर्वर तक नहीं…', detail: null });
  const newer = describeRefusal(new ApiError(409, 'some_future_code', 'a reason'), 'en', 'offline');
  assert.deepEqual(newer, { words: UNKNOWN_REFUSAL.en, detail: 'a reason' });
  assert.deepEqual(describeRefusal('Give a reason.', 'en', 'offline'), { words: 'Give a reason.', detail: null });
});
