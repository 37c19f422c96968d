#!/usr/bin/env node
/** `mohar`: serve, migrate, admin, backup and restore, … Reads settings once (parseConfig) and hands them down. */
import { Command } from 'commander';
import { parseConfig, ConfigError, type Config } from '../server/config.js';
import { isMoharError } from '../common/errors.js';
import { accountCommands } from './account.js';
import { adminCommands } from './admin.js';
import { auditCommands } from './audit.js';
import { blobsCommands } from './blobs.js';
import { backupCommands } from './backup.js';
import { bulkSendCommands } from './bulk-send.js';
import { espSimulatorCommands } from './esp-simulator.js';
import { templateCommands } from './template.js';
import { serveCommand, migrateCommand } from './serve.js';
import { doctorCommand, type DoctorOptions } from './doctor.js';
import { signBatchCommand, type SignBatchOptions } from './sign-batch.js';
import { signCommand, type SignOptions } from './sign.js';
import { tokensCommand } from './tokens.js';
import { verifyCommand } from './verify.js';

function loadConfig(): Config {
  try {
    return parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`mohar: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

const program = new Command('mohar')
  .description('Mohar: USB-token signer and e-signature office server')
  .version('0.1.0');
program
  .command('serve')
  .description('run the office server (default 127.0.0.1:8080)')
  .action(() => serveCommand(loadConfig()));
program
  .command('migrate')
  .description('bring the database schema up to date')
  .action(() => migrateCommand(loadConfig()));
adminCommands(program, loadConfig);
accountCommands(program, loadConfig);
auditCommands(program, loadConfig);
blobsCommands(program, loadConfig);
backupCommands(program, loadConfig);
templateCommands(program, loadConfig);
bulkSendCommands(program);
espSimulatorCommands(program);

const collect = (value: string, previous: string[] = []) => [...previous, value];
program
  .command('tokens')
  .description('list USB tokens and their certificates (known vendor modules, MOHAR_PKCS11_MODULES, or --module)')
  .option('--module <path>', 'PKCS#11 module to use (repeatable)', collect)
  .option('--doctor', 'diagnose drivers, PIN state, certificates, chains and the clock; exit 1 on an error')
  .option('--lang <en|hi>', 'language of the --doctor findings', 'en')
  .option('--server <url>', '--doctor: compare the clock with this Mohar server')
  .action((options: DoctorOptions & { doctor?: boolean }) =>
    options.doctor ? doctorCommand(loadConfig(), options) : tokensCommand(loadConfig(), options),
  );
program
  .command('sign <in> <out>')
  .description(
    'sign a PDF with a USB token (--module) or a PKCS#12 file (--p12); the PIN is read from a prompt or stdin',
  )
  .option('--module <path>', 'PKCS#11 module of the token')
  .option('--token <label>', 'token label (default: the only or first token)')
  .option('--cert-id <hex>', 'CKA_ID of the certificate (default: the only one with a key)')
  .option('--p12 <file>', 'PKCS#12 file with key and certificate')
  .option('--field <name>', 'sign this existing empty signature field (fully qualified name)')
  .option('--page <n>', 'page of a new visible signature')
  .option('--rect <x1,y1,x2,y2>', 'rectangle of a new visible signature, points from the top-left of the page')
  .option('--reason <text>', 'reason for signing')
  .option('--location <text>', 'where the signature was made')
  .option('--level <level>', 'PAdES level: B-B, B-T, B-LT or B-LTA', 'B-B')
  .option('--tsa <url>', 'RFC 3161 timestamp authority (default MOHAR_TSA_URL)')
  .action((input: string, output: string, options: SignOptions) => signCommand(loadConfig(), input, output, options));
program
  .command('sign-batch <links-file>')
  .description(
    'sign the documents of several DSC signing links (one a line) with a USB token: one PIN (prompt or stdin), one token session',
  )
  .option('--module <path>', 'PKCS#11 module to use (repeatable; default the known vendor modules)', collect)
  .option('--token <label>', 'token label (default: the first token)')
  .option('--cert-id <id>', 'certificate id as `mohar tokens` shows it (default: the only one that can sign)')
  .option('--tsa <url>', 'RFC 3161 timestamp authority (default MOHAR_TSA_URL): PAdES B-T')
  .action((file: string, options: SignBatchOptions) => signBatchCommand(loadConfig(), file, options));
program
  .command('verify <file>')
  .description('verify every signature of a PDF; exits 1 when any is invalid')
  .option('--json', 'print the report as JSON')
  .action((file: string, options: { json?: boolean }) => verifyCommand(file, options));

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(
    `mohar: ${isMoharError(error) ? error.message : error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
