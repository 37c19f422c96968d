/** The hash chain without a database: canonical JSON, the row hash, and what verifyAuditChain reports. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  GENESIS_HASH,
  canonicalJson,
  hashAuditRow,
  hashInput,
  verifyAuditChain,
  type AuditRow,
} from '../../../server/audit/chain.js';
import { isMoharError } from '../../../common/errors.js';

function chain(n: number, envelopeId = 'env-1'): AuditRow[] {
  const rows: AuditRow[] = [];
  for (let seq = 1; seq <= n; seq++) {
    const unhashed = {
      envelope_id: envelopeId,
      seq,
      account_id: 'acc-1',
      at: new Date(Date.UTC(2024, 4, 1, 9, 0, seq)).toISOString(),
      actor_type: (seq % 2 ? 'system' : 'recipient') as AuditRow['actor_type'],
      actor_id: seq % 2 ? null : `r-${seq}`,
      action: seq === 1 ? 'envelope.created' : 'recipient.viewed',
      details: canonicalJson({ ip: `10.0.0.${seq}`, user_agent: 'Firefox' }),
      prev_hash: rows.at(-1)?.hash ?? GENESIS_HASH,
    };
    rows.push({ ...unhashed, hash: hashAuditRow(unhashed) });
  }
  return rows;
}

describe('canonical JSON', () => {
  test('sorted keys at every depth, no whitespace, arrays kept in order', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } }),
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });
  test('JSON semantics first: undefined members dropped, Dates as ISO strings, non-ASCII kept', () => {
    assert.equal(
      canonicalJson({ u: undefined, t: new Date('2024-05-01T00:00:00Z'), n: 'राम' }),
      '{"n":"राम","t":"2024-05-01T00:00:00.000Z"}',
    );
  });
  test('values that are not JSON are refused', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.throws(
      () => canonicalJson(cyclic),
      (e) => isMoharError(e, 'internal_error'),
    );
    assert.throws(
      () => canonicalJson({ n: 1n }),
      (e) => isMoharError(e, 'internal_error'),
    );
  });
});

describe('row hash', () => {
  test('is SHA-256 of the documented text (every column but hash, keys sorted)', () => {
    const row = chain(1)[0]!;
    const text =
      `{"account_id":"acc-1","action":"envelope.created","actor_id":null,"actor_type":"system","at":"2024-05-01T09:00:01.000Z",` +
      `"details":"{\\"ip\\":\\"10.0.0.1\\",\\"user_agent\\":\\"Firefox\\"}","envelope_id":"env-1","prev_hash":"${'0'.repeat(64)}","seq":1}`;
    assert.equal(hashInput(row), text);
    assert.equal(row.hash, createHash('sha256').update(text).digest('hex'));
  });
  test('is canonicalJson of the hashed columns, also for strings JSON must escape and for odd values', () => {
    const canonical = (row: Omit<AuditRow, 'hash'>): string =>
      canonicalJson({
        account_id: row.account_id,
        action: row.action,
        actor_id: row.actor_id,
        actor_type: row.actor_type,
        at: row.at,
        details: row.details,
        envelope_id: row.envelope_id,
        prev_hash: row.prev_hash,
        seq: row.seq,
      });
    const base = chain(1)[0]!;
    const odd = [
      '"quoted" \\ back',
      'line\nbreak\ttab\u0000nul',
      'राम 😀',
      '\ud800 lone surrogate',
      '\u2028\u2029',
      '',
    ];
    for (const text of odd) {
      for (const row of [
        { ...base, account_id: text },
        { ...base, actor_id: text },
        { ...base, details: canonicalJson({ reason: text }) },
      ]) {
        assert.equal(hashInput(row), canonical(row));
      }
    }
    // Values a database never returns take canonicalJson itself (undefined dropped, a bigint refused).
    for (const row of [
      { ...base, actor_id: undefined },
      { ...base, seq: -0 },
      { ...base, seq: Number.NaN },
    ]) {
      assert.equal(hashInput(row as unknown as AuditRow), canonical(row as unknown as AuditRow));
    }
    assert.throws(
      () => hashInput({ ...base, seq: 1n } as unknown as AuditRow),
      (e) => isMoharError(e, 'internal_error'),
    );
  });
  test('extra properties on a row (a future column, a driver field) do not change the hash', () => {
    const row = chain(1)[0]!;
    assert.equal(hashAuditRow({ ...row, extra: 1 } as AuditRow), row.hash);
  });
});

describe('verifyAuditChain', () => {
  test('an intact chain, and an empty one', () => {
    const rows = chain(6);
    assert.deepEqual(verifyAuditChain(rows), { ok: true, count: 6, headHash: rows[5]!.hash });
    assert.deepEqual(verifyAuditChain([]), { ok: true, count: 0 });
  });

  test('an edited row is found at its seq', () => {
    const rows = chain(6);
    rows[2] = { ...rows[2]!, details: canonicalJson({ ip: '6.6.6.6', user_agent: 'Firefox' }) };
    const report = verifyAuditChain(rows);
    assert.equal(report.ok, false);
    assert.equal(report.firstBadSeq, 3);
    assert.equal(report.reason, 'hash_mismatch');
  });

  test('an edited row whose hash was recomputed breaks the link of the next row', () => {
    const rows = chain(6);
    const edited = { ...rows[2]!, at: '2024-01-01T00:00:00.000Z' };
    rows[2] = { ...edited, hash: hashAuditRow(edited) };
    assert.deepEqual([verifyAuditChain(rows).firstBadSeq, verifyAuditChain(rows).reason], [4, 'broken_link']);
  });

  test('a deleted row is reported as the missing seq (also the first, and several)', () => {
    const rows = chain(6);
    assert.deepEqual(pick(verifyAuditChain([...rows.slice(0, 2), ...rows.slice(3)])), [3, 'missing_row']);
    assert.deepEqual(pick(verifyAuditChain(rows.slice(1))), [1, 'missing_row']);
    const report = verifyAuditChain([...rows.slice(0, 2), ...rows.slice(4)]);
    assert.deepEqual(pick(report), [3, 'missing_row']);
    assert.match(report.message!, /seqs 3 to 4 are missing/);
  });

  test('a deleted row with the later rows renumbered is still found', () => {
    const rows = chain(6);
    const renumbered = [...rows.slice(0, 2), ...rows.slice(3).map((r) => ({ ...r, seq: r.seq - 1 }))];
    assert.deepEqual(pick(verifyAuditChain(renumbered)), [3, 'reordered']);
  });

  test('a swapped pair (seq numbers exchanged, rows kept) is reported as reordered at the first of the two', () => {
    const rows = chain(6);
    const swapped = [rows[0]!, rows[1]!, { ...rows[3]!, seq: 3 }, { ...rows[2]!, seq: 4 }, rows[4]!, rows[5]!];
    const report = verifyAuditChain(swapped);
    assert.deepEqual(pick(report), [3, 'reordered']);
    assert.match(report.message!, /written as seq 4/);
  });

  test('a list not in seq order, duplicate seqs, a row of another envelope, a chain not starting at zeros', () => {
    const rows = chain(4);
    assert.deepEqual(pick(verifyAuditChain([rows[0]!, rows[2]!, rows[1]!, rows[3]!])), [2, 'out_of_order']);
    assert.deepEqual(pick(verifyAuditChain([rows[0]!, rows[1]!, rows[1]!, rows[3]!])), [2, 'duplicate_seq']);
    assert.deepEqual(pick(verifyAuditChain([...rows.slice(0, 3), chain(4, 'env-2')[3]!])), [4, 'wrong_envelope']);
    const first = { ...rows[0]!, prev_hash: 'f'.repeat(64) };
    assert.deepEqual(pick(verifyAuditChain([{ ...first, hash: hashAuditRow(first) }])), [1, 'broken_link']);
  });

  test('rows cut from the end are found only against an anchor', () => {
    const rows = chain(6);
    const anchor = { seq: 6, hash: rows[5]!.hash };
    assert.equal(verifyAuditChain(rows.slice(0, 4)).ok, true, 'no trace inside the chain');
    assert.deepEqual(pick(verifyAuditChain(rows.slice(0, 4), anchor)), [5, 'truncated']);
    assert.equal(verifyAuditChain(rows, anchor).ok, true);
    assert.deepEqual(
      pick(
        verifyAuditChain(
          chain(6, 'env-1').map((r) => ({ ...r })),
          { seq: 6, hash: 'a'.repeat(64) },
        ),
      ),
      [6, 'anchor_mismatch'],
    );
  });
});

function pick(report: ReturnType<typeof verifyAuditChain>): [number | undefined, string | undefined] {
  return [report.firstBadSeq, report.reason];
}
