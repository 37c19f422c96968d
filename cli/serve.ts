import { API_BASE, LEGACY_BASE } from '../common/api-paths.js';
import type { Config } from '../server/config.js';
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
  const stop = async () => {
    await server.close();
    await hsm?.close();
    await asp?.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
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
