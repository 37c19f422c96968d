import { API_BASE, LEGACY_BASE } from '../common/api-paths.js';
import type { Config } from '../server/config.js';
import type { RunningServer } from '../server/start.js';
import { hsmSeal } from './hsm-seal.js';
import { connectStorage } from '../server/storage/connect.js';
import { migrateToLatest } from '../server/storage/migrations/index.js';

export async function serveCommand(config: Config): Promise<void> {
  // Loaded here, not at the top: the HTTP app is most of what `mohar` loads, and no other command needs it.
  const { startServer } = await import('../server/start.js');
  const hsm = config.sealPkcs11 ? await hsmSeal(config.sealPkcs11) : undefined;
  const aspKey = config.esign?.aspKey;
  const asp = aspKey && 'pkcs11' in aspKey ? await hsmSeal(aspKey.pkcs11, 'MOHAR_ESIGN_ASP_PKCS11_MODULE') : undefined;
  const server = await startServer(config, {
    ...(hsm ? { seal: hsm.seal } : {}),
    ...(asp ? { esignAsp: asp.seal } : {}),
  });
  const out = process.stdout;
  if (server.bootstrap) {
    out.write(`\nFirst start: created the default account. api_admin login: ${server.bootstrap.email}\n`);
    if (server.bootstrap.generatedPassword) {
      out.write(`Generated password (shown once, not stored in clear): ${server.bootstrap.generatedPassword}\n`);
    }
  }
  out.write(
    `\nMohar office server on ${server.url} (${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`})\n`,
  );
  out.write(`API docs: ${server.url}${API_BASE}/docs and ${server.url}${LEGACY_BASE}/docs\n\n`);
  if (server.metricsUrl) out.write(`Metrics: ${server.metricsUrl}/metrics\n\n`);
  stopOnSignals(server, config.shutdownTimeoutMs, async () => {
    await hsm?.close();
    await asp?.close();
  });
}

/**
 * Past the deadline the clean-up after the waits (releasing leases, closing the database) gets this much
 * more before the exit is forced: it is quick, unless the database itself hangs.
 */
const CLEAN_UP_GRACE_MS = 5_000;

/**
 * SIGTERM or SIGINT: the ordered stop (server/shutdown.ts), then exit 0. A second signal, or the deadline
 * passing with the stop unfinished, exits at once with status 1 and a log line saying why.
 */
function stopOnSignals(server: RunningServer, deadlineMs: number, closeTokens: () => Promise<void>): void {
  let stopping = false;
  const force = (why: string) => {
    server.app.log.error({ deadlineMs }, `shutdown forced: ${why}`);
    process.exit(1);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return force(`a second ${signal} arrived during the shutdown`);
    stopping = true;
    server.app.log.warn({ signal, deadlineMs }, 'shutting down: finishing requests and jobs');
    setTimeout(() => force('the shutdown did not finish in time'), deadlineMs + CLEAN_UP_GRACE_MS).unref();
    void (async () => {
      try {
        await server.close({ deadlineMs });
        await closeTokens();
      } catch (error) {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      }
      process.stdout.write('Mohar office server stopped.\n');
      process.exit(0);
    })();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

export async function migrateCommand(config: Config): Promise<void> {
  const storage = connectStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const report = await migrateToLatest(storage.db);
    process.stdout.write(report.applied.length ? `applied: ${report.applied.join(', ')}\n` : 'schema is up to date\n');
  } finally {
    await storage.close();
  }
}
