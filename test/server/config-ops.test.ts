/** The operations settings (server/config-ops.ts): metrics and the shutdown deadline. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, parseConfig } from '../../server/config.js';

const TOKEN = 'a-scrape-token-of-some-length';

describe('parseConfig: metrics and shutdown', () => {
  test('defaults: metrics off, a 30 s shutdown deadline', () => {
    const config = parseConfig({});
    assert.deepEqual(config.metrics, { enabled: false, token: undefined, listen: undefined });
    assert.equal(config.shutdownTimeoutMs, 30_000);
  });

  test('metrics on, with a token and a listener of their own', () => {
    for (const on of ['on', '1', 'true', 'yes', 'ON']) {
      assert.equal(parseConfig({ MOHAR_METRICS: on }).metrics.enabled, true);
    }
    for (const off of ['off', '0', 'false', 'no']) {
      assert.equal(parseConfig({ MOHAR_METRICS: off }).metrics.enabled, false);
    }
    const config = parseConfig({
      MOHAR_METRICS: 'on',
      MOHAR_METRICS_TOKEN: TOKEN,
      MOHAR_METRICS_LISTEN: '0.0.0.0:9464',
      MOHAR_SHUTDOWN_TIMEOUT_MS: '5000',
    });
    assert.deepEqual(config.metrics, { enabled: true, token: TOKEN, listen: { host: '0.0.0.0', port: 9464 } });
    assert.deepEqual(parseConfig({ MOHAR_METRICS: 'on', MOHAR_METRICS_LISTEN: '[::1]:0' }).metrics.listen, {
      host: '::1',
      port: 0,
    });
    assert.equal(config.shutdownTimeoutMs, 5000);
  });

  test('refusals name the setting; the token is never echoed', () => {
    const refused = (env: Record<string, string>, name: string) =>
      assert.throws(
        () => parseConfig(env),
        (error: unknown) => error instanceof ConfigError && error.message.includes(name),
        JSON.stringify(env),
      );
    refused({ MOHAR_METRICS: 'maybe' }, 'MOHAR_METRICS');
    refused({ MOHAR_METRICS: 'on', MOHAR_METRICS_TOKEN: 'short' }, 'MOHAR_METRICS_TOKEN');
    refused({ MOHAR_METRICS: 'on', MOHAR_METRICS_LISTEN: '9464' }, 'MOHAR_METRICS_LISTEN');
    refused({ MOHAR_METRICS: 'on', MOHAR_METRICS_LISTEN: 'host:70000' }, 'MOHAR_METRICS_LISTEN');
    // Settings for metrics that are off: a mistake, not something to ignore.
    refused({ MOHAR_METRICS_TOKEN: TOKEN }, 'MOHAR_METRICS');
    refused({ MOHAR_SHUTDOWN_TIMEOUT_MS: '10' }, 'MOHAR_SHUTDOWN_TIMEOUT_MS');
    refused({ MOHAR_SHUTDOWN_TIMEOUT_MS: 'soon' }, 'MOHAR_SHUTDOWN_TIMEOUT_MS');
    try {
      parseConfig({ MOHAR_METRICS: 'on', MOHAR_METRICS_TOKEN: 'secret-ish' });
    } catch (error) {
      assert.doesNotMatch((error as Error).message, /secret-ish/);
    }
  });
});
