/**
 * PostgreSQL: many rows of several tables written by one statement of data-modifying CTEs, each table's
 * rows passed as ONE jsonb parameter and expanded by `jsonb_populate_recordset`.
 *
 * Why not Kysely's multi-row VALUES: a draft of 40 rows is ~600 parameters. Building that query (its
 * operation tree, the compile, pg's bind of each value) was most of the Node time of a template
 * instantiation, and PostgreSQL parsed and planned a 600-parameter statement on every call. Here the
 * statement's text depends only on which tables and columns are written, so it is made once per shape and
 * kept; the values travel as a handful of JSON texts that PostgreSQL converts with each column's own input
 * function (the same conversions as a text parameter).
 *
 * Rows of a table with different sets of keys are written by separate CTEs, so a key a row leaves out gets
 * the column's DEFAULT, exactly as with Kysely's VALUES (an `undefined` value counts as left out).
 */
import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely } from 'kysely';
import type { NamedStatements } from './connect.js';

export interface TableRows {
  readonly table: string;
  readonly rows: readonly object[];
}

export interface Tail {
  /** The statement's main query (e.g. an INSERT … SELECT), with parameters $1…$n. */
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

interface Statement {
  readonly text: string;
  /** The name it is prepared under on each pooled connection: made from the text, so one text, one name. */
  readonly name: string;
}

const statements = new Map<string, Statement>();
const MAX_TEXTS = 200;

/**
 * One statement: every group of rows as a CTE, then `tail` as the main query. Rows changed by `tail`.
 * With `named` (the pool's, outside a transaction) the statement is prepared once per connection.
 */
export async function insertRowsThen<DB>(
  db: Kysely<DB>,
  tables: readonly TableRows[],
  tail: Tail,
  named?: NamedStatements,
): Promise<bigint> {
  const groups = tables.flatMap(({ table, rows }) => groupByColumns(table, rows));
  const shape = `${groups.map((g) => `${g.table}(${g.columns.join(',')})`).join(';')}|${tail.parameters.length}|${tail.sql}`;
  let statement = statements.get(shape);
  if (statement === undefined) {
    const text = statementText(groups, tail);
    statement = { text, name: `mohar_rows_${createHash('sha256').update(text).digest('hex').slice(0, 24)}` };
    if (statements.size >= MAX_TEXTS) statements.delete(statements.keys().next().value!);
    statements.set(shape, statement);
  }
  const parameters = [...tail.parameters, ...groups.map((g) => JSON.stringify(g.rows))];
  if (named) return BigInt((await named.run(statement.name, statement.text, parameters)).rowCount);
  const result = await db.executeQuery(CompiledQuery.raw(statement.text, parameters));
  return result.numAffectedRows ?? 0n;
}

interface Group {
  readonly table: string;
  readonly columns: readonly string[];
  readonly rows: object[];
}

function groupByColumns(table: string, rows: readonly object[]): Group[] {
  const groups = new Map<string, Group>();
  for (const row of rows) {
    const columns = Object.keys(row).filter((k) => (row as Record<string, unknown>)[k] !== undefined);
    const key = columns.join(',');
    const group = groups.get(key);
    if (group) group.rows.push(row);
    else groups.set(key, { table, columns, rows: [row] });
  }
  return [...groups.values()];
}

function statementText(groups: readonly Group[], tail: Tail): string {
  const first = tail.parameters.length + 1;
  const ctes = groups.map((g, i) => {
    const columns = g.columns.map(identifier).join(', ');
    return `w${i} AS (INSERT INTO ${identifier(g.table)} (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::${identifier(g.table)}, $${first + i}::jsonb))`;
  });
  return ctes.length === 0 ? tail.sql : `WITH ${ctes.join(', ')} ${tail.sql}`;
}

/** Table and column names come from code, never from a request; quoted all the same. */
function identifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain SQL name: ${name}`);
  return `"${name}"`;
}
