#!/usr/bin/env node
/** `mohar`: serve, migrate, admin. Reads settings once (parseConfig) and hands them down. */
import { Command } from 'commander';
import { parseConfig, ConfigError, type Config } from '../server/config.js';
import { isMoharError } from '../common/errors.js';
import { adminCommands } from './admin.js';
import { serveCommand, migrateCommand } from './serve.js';

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

const program = new Command('mohar').description('Mohar: USB-token signer and e-signature office server').version('0.1.0');
program.command('serve').description('run the office server (default 127.0.0.1:8080)').action(() => serveCommand(loadConfig()));
program.command('migrate').description('bring the database schema up to date').action(() => migrateCommand(loadConfig()));
adminCommands(program, loadConfig);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`mohar: ${isMoharError(error) ? error.message : error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
