/**
 * The bulk send CSV format (docs/bulk-send.md, "CSV column format"), shared by `mohar bulk-send` and the
 * console so the two front doors cannot disagree: CSV text -> records with their line numbers, records ->
 * the rows of `POST {api_base}/bulk-sends` with every local problem by CSV line, the API's invalid_rows
 * items -> CSV line and column, and a sample header/row for a source (GET …/bulk-sends/source-format).
 * Pure TypeScript: no Node module. csv-parse's browser ESM build works in Node and in Vite alike
 * (decision 19). Values stay strings: the server checks them against each field's rules (one rulebook).
 */
import { parse } from 'csv-parse/browser/esm/sync';

/** A recipient slot of the source (its recipients by sequence, then order; a template's roles). */
export interface BulkCsvSlot {
  /** 1-based: the `<n>` of `recipient_<n>_…`. */
  readonly slot: number;
  /** The source recipient's name or the template role's label (a hint for people, not used in rows). */
  readonly label: string | null;
  readonly role: string;
  readonly signature_method: string;
  readonly sequence: number;
  readonly role_key: string | null;
}

/** A field of the source that takes a value from the CSV (`field.<key>`; aliases are accepted too). */
export interface BulkCsvMergeField {
  readonly key: string;
  readonly aliases: string[];
  readonly label: string | null;
  readonly type: MergeFieldType;
  readonly field_type: number;
  /** 1-based slot of the recipient the field belongs to. */
  readonly slot: number;
  readonly required: boolean;
  readonly options: string[] | null;
}

/** What a CSV for one source may contain (the server's source-format answer satisfies it). */
export interface BulkCsvFormat {
  readonly recipient_slots: readonly BulkCsvSlot[];
  readonly merge_fields: readonly BulkCsvMergeField[];
}

/** Field types that take a pre-assigned value (the interface's numbers: FIELD_TYPES in common/fields.ts). */
export const MERGE_FIELD_TYPES = {
  8: 'text',
  9: 'checkbox',
  10: 'number',
  11: 'date',
  12: 'dropdown',
  13: 'radio',
} as const;
export type MergeFieldType = (typeof MERGE_FIELD_TYPES)[keyof typeof MERGE_FIELD_TYPES];

export interface BulkCsvRecipient {
  name: string;
  email: string;
  role?: string;
  signature_method?: string;
  sequence?: number;
}

/** One row of the JSON call. */
export interface BulkCsvRow {
  external_id?: string;
  title?: string;
  message?: string;
  redirect_url?: string;
  metadata?: Record<string, string>;
  recipients: BulkCsvRecipient[];
  field_values?: Record<string, string>;
}

/** A problem at a CSV line; `row_index` is the row's 0-based index in the call (null: the header or the file). */
export interface BulkCsvError {
  readonly line: number;
  readonly row_index: number | null;
  readonly column: string | null;
  readonly code: string;
  readonly message: string;
}

export interface BulkCsvResult {
  readonly rows: BulkCsvRow[];
  /** The CSV line where each row starts (same index as rows). */
  readonly lines: number[];
  readonly errors: BulkCsvError[];
}

/** A parsed record and the line it starts on (1-based). */
export interface CsvRecord {
  readonly cells: readonly string[];
  readonly line: number;
}

const PLAIN = ['external_id', 'title', 'message', 'redirect_url'] as const;
const RECIPIENT = /^recipient_(\d+)_(name|email|role|signature_method|sequence)$/;

function fail(line: number, row: number | null, column: string | null, code: string, message: string): BulkCsvError {
  return { line, row_index: row, column, code, message };
}

/** CSV text (RFC 4180: quotes, commas and newlines in cells; CRLF; a BOM) to records with their start lines. */
export function parseCsvText(text: string): { records: CsvRecord[]; errors: BulkCsvError[] } {
  try {
    const parsed = parse(text, {
      bom: true,
      info: true,
      raw: true,
      skip_empty_lines: true,
      relax_column_count: true,
    }) as unknown as { record: string[]; raw: string; info: { lines: number } }[];
    // csv-parse counts lines up to a record's end; a quoted newline inside it moves its start back.
    const records = parsed.map((p) => ({
      cells: p.record,
      line: p.info.lines - (p.raw.replace(/\r?\n$/, '').match(/\n/g)?.length ?? 0),
    }));
    return { records, errors: [] };
  } catch (error) {
    const e = error as { message?: string; lines?: number };
    return { records: [], errors: [fail(e.lines ?? 1, null, null, 'malformed_csv', e.message ?? String(error))] };
  }
}

interface Header {
  readonly columns: readonly string[];
  readonly slots: number;
  readonly errors: BulkCsvError[];
}

function readHeader(columns: readonly string[], line: number, format: BulkCsvFormat | undefined): Header {
  const errors: BulkCsvError[] = [];
  const seen = new Set<string>();
  let slots = 0;
  const mergeKeys = format && new Set(format.merge_fields.flatMap((f) => [f.key, ...f.aliases]));
  for (const column of columns) {
    if (seen.has(column)) {
      errors.push(fail(line, null, column, 'duplicate_column', `the column "${column}" appears twice`));
    }
    seen.add(column);
    const recipient = RECIPIENT.exec(column);
    if (recipient) slots = Math.max(slots, Number(recipient[1]));
    else if (column.startsWith('field.') && column.length > 6) {
      if (mergeKeys && !mergeKeys.has(column.slice(6))) {
        errors.push(
          fail(
            line,
            null,
            column,
            'unknown_merge_field',
            `the source has no field with the label or field_key "${column.slice(6)}"`,
          ),
        );
      }
    } else if (
      !(PLAIN as readonly string[]).includes(column) &&
      !(column.startsWith('metadata.') && column.length > 9)
    ) {
      errors.push(
        fail(
          line,
          null,
          column,
          'unknown_column',
          `unknown column "${column}" (see docs/bulk-send.md, CSV column format)`,
        ),
      );
    }
  }
  const expected = format ? format.recipient_slots.length : slots;
  if (format && slots > expected) {
    errors.push(
      fail(
        line,
        null,
        `recipient_${slots}_name`,
        'unknown_column',
        `the source has ${expected} recipient slot(s); there is no recipient_${slots}`,
      ),
    );
  }
  for (let n = 1; n <= expected; n++) {
    for (const part of ['name', 'email']) {
      if (!seen.has(`recipient_${n}_${part}`)) {
        errors.push(
          fail(
            line,
            null,
            `recipient_${n}_${part}`,
            'missing_column',
            `the column recipient_${n}_${part} is missing (one name and e-mail column per recipient slot)`,
          ),
        );
      }
    }
  }
  return { columns, slots: expected, errors };
}

function rowOf(header: Header, record: CsvRecord, index: number, errors: BulkCsvError[]): BulkCsvRow {
  const at = (column: string) => fail(record.line, index, column, '', '');
  if (record.cells.length > header.columns.length) {
    errors.push({
      ...at(''),
      column: null,
      code: 'too_many_cells',
      message: `${record.cells.length} cells; the header has ${header.columns.length} columns`,
    });
  }
  const row: BulkCsvRow = { recipients: Array.from({ length: header.slots }, () => ({ name: '', email: '' })) };
  header.columns.forEach((column, i) => {
    const value = (record.cells[i] ?? '').trim();
    if (value === '') return;
    const recipient = RECIPIENT.exec(column);
    if (recipient) {
      const target = row.recipients[Number(recipient[1]) - 1];
      if (!target) return;
      if (recipient[2] === 'sequence') {
        if (/^\d{1,4}$/.test(value) && Number(value) >= 1) target.sequence = Number(value);
        else {
          errors.push({
            ...at(column),
            code: 'invalid_sequence',
            message: `"${value}" is not a sequence number (1 or more)`,
          });
        }
      } else target[recipient[2] as 'name' | 'email' | 'role' | 'signature_method'] = value;
    } else if (column.startsWith('field.')) (row.field_values ??= {})[column.slice(6)] = value;
    else if (column.startsWith('metadata.')) (row.metadata ??= {})[column.slice(9)] = value;
    else row[column as (typeof PLAIN)[number]] = value;
  });
  row.recipients.forEach((r, n) => {
    for (const part of ['name', 'email'] as const) {
      if (r[part] === '') {
        errors.push({
          ...at(`recipient_${n + 1}_${part}`),
          code: 'missing_value',
          message: `recipient ${n + 1} has no ${part === 'name' ? 'name' : 'e-mail'}`,
        });
      }
    }
  });
  return row;
}

/**
 * Records (the first one the header; string[][] as parsed, or CsvRecord with lines) to the call's rows.
 * Every data record becomes a row (best effort, so a console can still ask the server about the others);
 * rows with a problem are listed in `errors` and must not be sent as they are. `format` (the source's
 * slots and merge fields) adds the checks only it allows: slot count, unknown merge fields.
 */
export function rowsFromRecords(
  records: readonly (readonly string[] | CsvRecord)[],
  format?: BulkCsvFormat,
): BulkCsvResult {
  const withLines = records.map((r, i): CsvRecord =>
    'cells' in r ? r : { cells: r as readonly string[], line: i + 1 },
  );
  const [first, ...data] = withLines.filter((r) => r.cells.some((c) => c.trim() !== ''));
  if (!first) {
    return {
      rows: [],
      lines: [],
      errors: [fail(1, null, null, 'empty_csv', 'the CSV is empty: a header line and one line per row are needed')],
    };
  }
  const header = readHeader(
    first.cells.map((c) => c.trim()),
    first.line,
    format,
  );
  const errors = [...header.errors];
  if (data.length === 0) errors.push(fail(first.line, null, null, 'no_rows', 'the CSV has a header but no rows'));
  const rows = data.map((record, index) => rowOf(header, record, index, errors));
  return { rows, lines: data.map((r) => r.line), errors };
}

/** CSV text straight to rows (parseCsvText, then rowsFromRecords). */
export function rowsFromCsv(text: string, format?: BulkCsvFormat): BulkCsvResult {
  const parsed = parseCsvText(text);
  if (parsed.errors.length > 0) return { rows: [], lines: [], errors: parsed.errors };
  return rowsFromRecords(parsed.records, format);
}

/** The CSV column of an API error path such as /rows/3/field_values/Amount or /rows/3/recipients/0/email. */
export function columnOfPath(path: string): string | null {
  const rest = /^\/rows\/\d+\/(.*)$/.exec(path)?.[1];
  if (rest === undefined) return null;
  if (rest.startsWith('field_values/')) return `field.${rest.slice(13)}`;
  if (rest.startsWith('metadata/')) return `metadata.${rest.slice(9)}`;
  const recipient = /^recipients\/(\d+)(?:\/(\w+))?/.exec(rest);
  if (recipient) return `recipient_${Number(recipient[1]) + 1}_${recipient[2] ?? 'email'}`;
  return (PLAIN as readonly string[]).includes(rest) ? rest : null;
}

/** The items of a 422 invalid_rows answer as CSV errors (line of the row, column of the path). */
export function csvErrorsOfProblem(
  items: readonly { index?: number; path?: string; code?: string; message: string }[],
  lines: readonly number[],
): BulkCsvError[] {
  return items.map((e) => {
    const line = e.index === undefined ? 1 : (lines[e.index] ?? 1);
    return fail(
      line,
      e.index ?? null,
      e.path === undefined ? null : columnOfPath(e.path),
      e.code ?? 'invalid',
      e.message,
    );
  });
}

/** One CSV line (RFC 4180 quoting where a cell needs it), without the line end. */
export function csvLine(cells: readonly string[]): string {
  return cells.map((c) => (/[",\r\n]|^\s|\s$/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',');
}

function exampleValue(field: BulkCsvMergeField): string {
  switch (field.type) {
    case 'number':
      return '100';
    case 'date':
      return '2027-01-15';
    case 'checkbox':
      return 'true';
    case 'dropdown':
    case 'radio':
      return field.options?.[0] ?? '';
    default:
      return field.label ?? field.key;
  }
}

/** A header and one example row for a source: external_id, a name and e-mail per slot, one column per merge field. */
export function sampleCsv(format: BulkCsvFormat): { columns: string[]; example: string[]; text: string } {
  const columns = ['external_id', 'title'];
  const example = ['row-1', ''];
  for (const s of format.recipient_slots) {
    columns.push(`recipient_${s.slot}_name`, `recipient_${s.slot}_email`);
    example.push(`Recipient ${s.slot}`, `recipient${s.slot}@example.com`);
  }
  for (const f of format.merge_fields) {
    columns.push(`field.${f.key}`);
    example.push(exampleValue(f));
  }
  return { columns, example, text: `${csvLine(columns)}\r\n${csvLine(example)}\r\n` };
}
