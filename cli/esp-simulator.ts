/**
 * `mohar esp-simulator`: the offline Aadhaar eSign ESP (server/aadhaar/simulator) on loopback, for the sandbox
 * and for trying Aadhaar signing without ESP credentials. Its keys live in --data-dir and survive restarts, so
 * a Mohar server configured once keeps working. docs/aadhaar-simulator.md.
 */
import { createPrivateKey } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  issueAspCertificate,
  loadOrCreateSimulatorPki,
  pkiPaths,
  type SimulatorPki,
} from '../server/aadhaar/simulator/ca.js';
import { writePkcs12 } from '../server/aadhaar/simulator/pkcs12.js';
import { SIMULATOR_OTP, TEST_AADHAAR } from '../server/aadhaar/simulator/scenarios.js';
import { startEspSimulator } from '../server/aadhaar/simulator/server.js';

export interface EspSimulatorOptions {
  port: string;
  host: string;
  dataDir: string;
  aspId: string;
  aspCert?: string;
}

/** Test-only passphrase of the generated ASP PKCS#12 (the whole directory is test material). */
const ASP_P12_PASSPHRASE = 'esp-simulator';

interface AspFiles {
  certPem: string;
  certPath: string;
  /** Only for the generated ASP key. */
  p12Path?: string;
}

/** The registered ASP certificate: the one given, or a generated one kept in the data directory (+ PKCS#12). */
async function aspCertificate(pki: SimulatorPki, dir: string, options: EspSimulatorOptions): Promise<AspFiles> {
  if (options.aspCert) {
    const certPath = resolve(options.aspCert);
    return { certPem: readFileSync(certPath, 'utf8'), certPath };
  }
  const certPath = join(dir, 'asp.pem');
  const keyPath = join(dir, 'asp.key.pem');
  const p12Path = join(dir, 'asp.p12');
  if (!existsSync(certPath) || !existsSync(keyPath)) {
    const asp = await issueAspCertificate(pki, options.aspId);
    writeFileSync(certPath, asp.certPem);
    writeFileSync(keyPath, asp.keyPem, { mode: 0o600 });
  }
  if (!existsSync(p12Path)) {
    const certificate = readFileSync(certPath, 'utf8');
    const der = Buffer.from(
      /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(certificate)?.[1] ?? '',
      'base64',
    );
    const pkcs8 = createPrivateKey(readFileSync(keyPath, 'utf8')).export({ type: 'pkcs8', format: 'der' });
    writeFileSync(
      p12Path,
      await writePkcs12({ pkcs8, certificate: der, passphrase: ASP_P12_PASSPHRASE, name: `${options.aspId} ASP` }),
      { mode: 0o600 },
    );
  }
  return { certPem: readFileSync(certPath, 'utf8'), certPath, p12Path };
}

export async function espSimulatorCommand(options: EspSimulatorOptions): Promise<void> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be a port number (got "${options.port}")`);
  }
  const dir = resolve(options.dataDir);
  const pki = await loadOrCreateSimulatorPki(dir);
  const asp = await aspCertificate(pki, dir, options);
  const running = await startEspSimulator({
    pki,
    asps: new Map([[options.aspId, asp.certPem]]),
    port,
    host: options.host,
  });
  const paths = pkiPaths(dir);
  const lines = [
    `ESP simulator (test only) listening on ${running.url}`,
    `  ESP URL (form post)     ${running.espUrl}`,
    `  EsignStatus URL         ${running.statusUrl}`,
    `  ESP certificate (pin)   ${paths.responseSigner}`,
    `  test CA root (trust)    ${paths.root}   (add to the trust anchors of the test server only)`,
    `  ESP CA                  ${paths.espCa}`,
    `  registered ASP          ${options.aspId}: ${asp.certPath}`,
    `  OTP ${SIMULATOR_OTP}; Aadhaar ${TEST_AADHAAR.success} signs; scripted failures: docs/aadhaar-simulator.md`,
    '',
    'Settings for a Mohar server that uses it:',
    `  MOHAR_ESIGN_ESP_URL=${running.espUrl}`,
    `  MOHAR_ESIGN_STATUS_URL=${running.statusUrl}`,
    `  MOHAR_ESIGN_ASP_ID=${options.aspId}`,
    asp.p12Path
      ? `  MOHAR_ESIGN_ASP_KEY=${asp.p12Path}\n  MOHAR_ESIGN_ASP_KEY_PASSPHRASE=${ASP_P12_PASSPHRASE}`
      : '  MOHAR_ESIGN_ASP_KEY=<the PKCS#12 of the ASP key registered above>',
    `  MOHAR_ESIGN_ESP_CERT=${paths.responseSigner}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const stop = (): void => {
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

export function espSimulatorCommands(program: Command): void {
  program
    .command('esp-simulator')
    .description('run an offline Aadhaar eSign ESP simulator on loopback (test only: fixed OTP, test CA, no UIDAI)')
    .option('--port <n>', 'port to listen on (0: any free port)', '5080')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--data-dir <dir>', 'directory for its test CA, ESP keys and the generated ASP key', 'esp-simulator')
    .option('--asp-id <id>', 'the aspId it accepts requests from', 'MOHAR-SANDBOX-ASP')
    .option('--asp-cert <pem>', 'certificate of that ASP (default: one generated in --data-dir, with asp.p12)')
    .action((options: EspSimulatorOptions) => espSimulatorCommand(options));
}
