/**
 * `mohar bulk-send SOURCE_ID rows.csv`: the CSV front door of POST {api_base}/bulk-sends, over HTTP to a
 * running server (--url, --api-key or MOHAR_URL, MOHAR_API_KEY). The CSV is mapped by common/bulk-csv.ts
 * (the console's module too) against the source's format, every bad line is printed before anything is
 * sent; the batch goes with an Idempotency-Key derived from the source and the file's bytes, so running
 * the same file again follows the first batch instead of queueing a second. Then progress until the
 * batch ends, and the failed rows. Exit 0 only when every row was sent.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { csvErrorsOfProblem, rowsFromCsv, type BulkCsvError, type BulkCsvFormat } from '../common/bulk-csv.js';
import { apiClient } from './api-client.js';
import { followBatch, type BatchState } from './bulk-progress.js';

export interface BulkSendOptions {
  url: string;
  apiKey?: string;
  template?: boolean;
  templateVersion?: string;
  sample?: boolean;
  dryRun?: boolean;
  wait: boolean;
  interval: string;
}

interface Output {
  readonly out: NodeJS.WriteStream | NodeJS.WritableStream;
  readonly err: NodeJS.WriteStream | NodeJS.WritableStream;
}

const HELP = `
The CSV: a header line, then one line per envelope (docs/bulk-send.md, "CSV column format"):
  external_id, title, message, redirect_url, metadata.<key>,
  recipient_<n>_name, recipient_<n>_email (one pair per recipient of the source),
  recipient_<n>_role, recipient_<n>_signature_method, recipient_<n>_sequence (optional),
  field.<label or field_key> (merge values). --sample prints the header for a source.

Idempotency: the batch is sent with Idempotency-Key "csv-<sha256 of the source and the file>". Running
the same file for the same source again (within 24 hours) replays the first answer and follows that
batch: nothing is queued twice. Change the file (or use external_id values) for a new batch.

Exit codes: 0 every row sent; 1 rows failed, the batch was canceled, a line is not valid (each is printed
with its CSV line number) or the server refused the call.`;

function sourceQuery(sourceId: string, options: BulkSendOptions): Record<string, string | number> {
  if (!options.template) return { source_envelope_id: sourceId };
  return {
    source_template_id: sourceId,
    ...(options.templateVersion === undefined ? {} : { template_version: Number(options.templateVersion) }),
  };
}

export function idempotencyKey(source: Record<string, string | number>, file: Uint8Array): string {
  const hash = createHash('sha256').update(JSON.stringify(source)).update('\n').update(file).digest('hex');
  return `csv-${hash}`;
}

function printErrors(errors: readonly BulkCsvError[], stream: Output['err']): void {
  for (const e of [...errors].sort((a, b) => a.line - b.line)) {
    stream.write(`line ${e.line}${e.column === null ? '' : `, ${e.column}`}: ${e.message} (${e.code})\n`);
  }
}

function report(state: BatchState, lines: readonly number[], io: Output): number {
  const c = state.counts;
  io.out.write(
    `bulk send ${state.bulk_send_id}: ${state.status}; ${c.sent} of ${c.total} sent, ${c.failed} failed${c.canceled ? `, ${c.canceled} canceled` : ''}\n`,
  );
  for (const f of state.failures) {
    io.out.write(
      `  failed: row ${f.row_index} (line ${lines[f.row_index] ?? '?'}${f.external_id ? `, ${f.external_id}` : ''}): ${f.message} (${f.code})\n`,
    );
  }
  return state.status === 'completed' ? 0 : 1;
}

/** Runs the command; resolves with the exit code. */
export async function bulkSendCommand(
  sourceId: string,
  file: string | undefined,
  options: BulkSendOptions,
  io: Output = { out: process.stdout, err: process.stderr },
): Promise<number> {
  if (!options.apiKey) {
    io.err.write('mohar bulk-send: an API key is needed (--api-key or MOHAR_API_KEY)\n');
    return 2;
  }
  const api = apiClient(options.url, options.apiKey);
  const source = sourceQuery(sourceId, options);
  const format = await api.get(
    `/bulk-sends/source-format?${new URLSearchParams(Object.entries(source).map(([k, v]): [string, string] => [k, String(v)]))}`,
  );
  if (format.status !== 200) return refused(format, io);
  if (options.sample) {
    io.out.write(format.json.sample_csv as string);
    return 0;
  }
  if (file === undefined) {
    io.err.write('mohar bulk-send: name the CSV file (or --sample for its header)\n');
    return 2;
  }
  const bytes = await readFile(file);
  const parsed = rowsFromCsv(new TextDecoder().decode(bytes), format.json as unknown as BulkCsvFormat);
  if (parsed.errors.length > 0) {
    io.err.write(`${file}: ${parsed.errors.length} problem(s); nothing was sent\n`);
    printErrors(parsed.errors, io.err);
    return 1;
  }
  const body = { ...source, rows: parsed.rows };
  if (options.dryRun) {
    const checked = await api.post('/bulk-sends/validate', body);
    if (checked.status !== 200) return refused(checked, io, parsed.lines);
    io.out.write(`${file}: ${parsed.rows.length} row(s) are valid; nothing was sent (--dry-run)\n`);
    return 0;
  }
  const posted = await api.post('/bulk-sends', body, { 'idempotency-key': idempotencyKey(source, bytes) });
  if (posted.status !== 202) return refused(posted, io, parsed.lines);
  const id = posted.json.bulk_send_id as string;
  io.out.write(
    posted.replayed
      ? `${file} was sent before as bulk send ${id}: following it (nothing queued again)\n`
      : `queued bulk send ${id}: ${parsed.rows.length} row(s)\n`,
  );
  if (!options.wait) return 0;
  const final = await followBatch(api, id, { intervalMs: Number(options.interval) * 1000, stream: io.err });
  return report(final, parsed.lines, io);
}

function refused(
  response: { status: number; json: Record<string, unknown> },
  io: Output,
  lines: readonly number[] = [],
): number {
  const problem = response.json as {
    code?: string;
    detail?: string;
    errors?: { index?: number; path?: string; code?: string; message: string }[];
  };
  io.err.write(`refused (${response.status} ${problem.code ?? ''}): ${problem.detail ?? JSON.stringify(problem)}\n`);
  if (problem.code === 'invalid_rows' && problem.errors) printErrors(csvErrorsOfProblem(problem.errors, lines), io.err);
  return 1;
}

export function bulkSendCommands(program: Command): void {
  program
    .command('bulk-send <source_id> [rows_csv]')
    .description(
      'send one envelope per CSV line from a draft envelope (or --template), follow the batch, list the failures',
    )
    .addOption(new Option('--url <base_url>', 'the Mohar server').env('MOHAR_URL').default('http://127.0.0.1:8080'))
    .addOption(new Option('--api-key <key>', 'the account API key').env('MOHAR_API_KEY'))
    .option('--template', 'source_id is a template (its roles are the recipient slots)')
    .option('--template-version <n>', 'with --template: this version (default the latest)')
    .option('--sample', 'print a CSV header and an example line for the source, and exit')
    .option('--dry-run', 'check every line with the server (POST /bulk-sends/validate) and send nothing')
    .option('--no-wait', 'exit once the batch is queued')
    .option('--interval <seconds>', 'seconds between progress reads', '1')
    .addHelpText('after', HELP)
    .action(async (sourceId: string, file: string | undefined, options: BulkSendOptions) => {
      process.exitCode = await bulkSendCommand(sourceId, file, options);
    });
}
