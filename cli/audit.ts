/**
 * `mohar audit verify [--envelope ID]`: checks the audit hash chain of every envelope (or one) in the
 * configured database and prints one line per envelope, OK or the first bad seq and why.
 * Exit code 0 when every chain verifies, 1 when any is broken (or the envelope asked for is unknown).
 * Read-only: it opens the database like `mohar migrate` does and runs no migration.
 */
import type { Command } from 'commander';
import { MoharError } from '../common/errors.js';
import { auditedEnvelopeIds, listAudit, verifyAuditChain, type ChainReport } from '../server/audit/index.js';
import type { Config } from '../server/config.js';
import { connectStorage } from '../server/storage/connect.js';

export interface AuditVerifyOptions {
  readonly envelope?: string;
}

export interface AuditVerifySummary {
  readonly checked: number;
  readonly broken: number;
}

/** Registers `audit verify` on the program; `loadConfig` is called when the command runs. */
export function auditCommands(program: Command, loadConfig: () => Config): void {
  const audit = program.command('audit').description('the envelope audit trail');
  audit
    .command('verify')
    .description('check the audit hash chain of every envelope (or one); exits 1 when any chain is broken')
    .option('--envelope <id>', 'check only this envelope')
    .action(async (options: AuditVerifyOptions) => {
      const summary = await auditVerifyCommand(loadConfig(), options);
      process.exitCode = summary.broken > 0 ? 1 : 0;
    });
}

function line(envelopeId: string, report: ChainReport): string {
  if (report.ok) {
    return `OK      ${envelopeId}  ${report.count} event${report.count === 1 ? '' : 's'}${report.headHash ? `  head ${report.headHash}` : ''}`;
  }
  return `BROKEN  ${envelopeId}  seq ${report.firstBadSeq}: ${report.reason}: ${report.message}`;
}

function missingTable(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /audit_events/.test(message) && /no such table|does not exist/.test(message);
}

/** Verifies and prints; returns how many chains were checked and how many are broken. */
export async function auditVerifyCommand(
  config: Config,
  options: AuditVerifyOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<AuditVerifySummary> {
  const storage = connectStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  const { db } = storage;
  try {
    if (options.envelope !== undefined) {
      const id = options.envelope;
      const rows = await listAudit(db, id);
      if (rows.length === 0) {
        const envelope = await db.selectFrom('envelopes').select('id').where('id', '=', id).executeTakeFirst();
        if (!envelope) throw new MoharError('envelope_not_found', `no envelope ${id} and no audit events for it`);
        out.write(`EMPTY   ${id}  no audit events\n`);
        return { checked: 1, broken: 0 };
      }
      const report = verifyAuditChain(rows);
      out.write(`${line(id, report)}\n`);
      return { checked: 1, broken: report.ok ? 0 : 1 };
    }

    let checked = 0;
    let broken = 0;
    let after: string | undefined;
    for (;;) {
      const ids = await auditedEnvelopeIds(db, { limit: 200, ...(after === undefined ? {} : { after }) });
      if (ids.length === 0) break;
      for (const id of ids) {
        const report = verifyAuditChain(await listAudit(db, id));
        checked++;
        if (!report.ok) broken++;
        out.write(`${line(id, report)}\n`);
      }
      after = ids.at(-1);
    }
    const withoutTrail = await db
      .selectFrom('envelopes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('audit_events')
              .select('audit_events.seq')
              .whereRef('audit_events.envelope_id', '=', 'envelopes.id'),
          ),
        ),
      )
      .executeTakeFirstOrThrow();
    out.write(`${checked} envelope${checked === 1 ? '' : 's'} checked: ${checked - broken} ok, ${broken} broken\n`);
    const empty = Number(withoutTrail.n);
    if (empty > 0) {
      out.write(
        `${empty} envelope${empty === 1 ? ' has' : 's have'} no audit events (created before the audit trail, or their events were removed)\n`,
      );
    }
    return { checked, broken };
  } catch (error) {
    if (missingTable(error)) {
      throw new MoharError('internal_error', 'the database has no audit_events table yet; run `mohar migrate` first', {
        cause: error,
      });
    }
    throw error;
  } finally {
    await storage.close();
  }
}
