/**
 * A bad setting: start-up stops with one line naming it. Its own module so config.ts and config-esign.ts both use it
 * without a cycle.
 */
export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`invalid setting ${setting}: ${problem}`);
    this.name = 'ConfigError';
  }
}
