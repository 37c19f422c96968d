/**
 * A stand-in for `mohar` with only `audit verify` registered (cli/audit.ts), as cli/main.ts will do:
 *   node --import tsx test/cli/audit-runner.ts audit verify [--envelope ID]
 * Settings come from the environment like the real command; errors end like cli/main.ts (exit 1).
 */
import { Command } from 'commander';
import { isMoharError } from '../../common/errors.js';
import { auditCommands } from '../../cli/audit.js';
import { ConfigError, parseConfig } from '../../server/config.js';

const program = new Command('mohar');
auditCommands(program, () => {
  try {
    return parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`mohar: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
});
program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`mohar: ${isMoharError(error) ? error.message : error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
