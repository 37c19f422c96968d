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
import { CompiledQuery, type Kysely } from 'kysely';

export interface TableRows {
  readonly table: string;
  readonly rows: readonly object[];
}

export interface Tail {
  /** The statement's main query (e.g. an INSERT … SELECT), with parameters $1…$n. */
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

const texts = new Map<string, string>();
const MAX_TEXTS = 200;

/** One statement: every group of rows as a CTE, then `tail` as the main query. Rows changed by `tail`. */
export async function insertRowsThen<DB>(db: Kysely<DB>, tables: readonly TableRows[], tail: Tail): Promise<bigint> {
  const groups = tables.flatMap(({ table, rows }) => groupByColumns(table, rows));
  const shape = `${groups.map((g) => `${g.table}(${g.columns.join(',')})`).join(';')}|${tail.parameters.length}|${tail.sql}`;
  let text = texts.get(shape);
  if (text === undefined) {
    text = statementText(groups, tail);
    if (texts.size >= MAX_TEXTS) texts.delete(texts.keys().next().value!);
    texts.set(shape, text);
  }
  const parameters = [...tail.parameters, ...groups.map((g) => JSON.stringify(g.rows))];
  const result = await db.executeQuery(CompiledQuery.raw(text, parameters));
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
