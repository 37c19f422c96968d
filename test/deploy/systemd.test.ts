/**
 * deploy/systemd/mohar.service: the settings docs/deployment.md promises (dedicated user, env file, hardening,
 * graceful stop longer than Mohar's shutdown deadline, restart on failure), and `systemd-analyze verify` when
 * this machine has it (the test says so when it has not). No unit is installed or started here.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const repo = new URL('../../', import.meta.url).pathname;
const unitPath = join(repo, 'deploy/systemd/mohar.service');

/** Section → key → every value (a key may repeat: Environment=, SystemCallFilter=). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set(header[1]!, current);
      continue;
    }
    const pair = /^([A-Za-z]+)=(.*)$/.exec(line);
    assert.ok(pair && current, `a key=value line inside a section: ${line}`);
    current.set(pair[1]!, [...(current.get(pair[1]!) ?? []), pair[2]!]);
  }
  return sections;
}

const unit = parseUnit(readFileSync(unitPath, 'utf8'));
const service = unit.get('Service')!;
const one = (key: string): string => {
  const values = service.get(key);
  assert.equal(values?.length, 1, `[Service] has one ${key}=`);
  return values[0]!;
};
const environment = new Map(
  (service.get('Environment') ?? []).map((pair) => [
    pair.slice(0, pair.indexOf('=')),
    pair.slice(pair.indexOf('=') + 1),
  ]),
);

/** Seconds of a systemd time span as the unit writes it ("45", "45s", "1min 30s"). */
function timeSpan(value: string): number {
  const units: Record<string, number> = { '': 1, s: 1, sec: 1, min: 60, m: 60, h: 3600 };
  return [...value.matchAll(/(\d+)\s*([a-z]*)/g)].reduce((sum, [, n, u]) => sum + Number(n) * units[u!]!, 0);
}

test('a dedicated user, an environment file, and the data dir as the only writable path', () => {
  assert.equal(one('User'), 'mohar');
  assert.equal(one('Group'), 'mohar');
  assert.equal(one('EnvironmentFile'), '/etc/mohar/mohar.env');
  const dataDir = environment.get('MOHAR_DATA_DIR');
  assert.equal(dataDir, '/var/lib/mohar');
  assert.equal(one('StateDirectory'), 'mohar', 'systemd creates /var/lib/mohar for the user');
  assert.equal(one('ReadWritePaths'), dataDir);
  assert.match(one('ExecStart'), /^\/usr\/bin\/node --max-semi-space-size=4 \/opt\/mohar\/dist\/cli\/main\.js serve$/);
  assert.equal(one('WorkingDirectory'), '/opt/mohar');
});

test('hardened: no new privileges, a read-only system, private /tmp and devices, no capabilities', () => {
  for (const [key, value] of [
    ['NoNewPrivileges', 'yes'],
    ['ProtectSystem', 'strict'],
    ['ProtectHome', 'yes'],
    ['PrivateTmp', 'yes'],
    ['PrivateDevices', 'yes'],
    ['CapabilityBoundingSet', ''],
    ['RestrictSUIDSGID', 'yes'],
  ] as const) {
    assert.equal(one(key), value, `${key}=${value}`);
  }
  // V8 writes executable memory: this setting would kill the server at its first JIT compilation.
  assert.equal(service.get('MemoryDenyWriteExecute'), undefined);
});

test('stopped by SIGTERM with more time than the shutdown deadline; restarted on failure, not on a bad setting', () => {
  assert.equal(one('KillSignal'), 'SIGTERM');
  const envExample = readFileSync(join(repo, 'deploy/systemd/mohar.env.example'), 'utf8');
  const deadlineMs = Number(/^MOHAR_SHUTDOWN_TIMEOUT_MS=(\d+)$/m.exec(envExample)?.[1] ?? '30000');
  assert.ok(timeSpan(one('TimeoutStopSec')) > deadlineMs / 1000, 'systemd waits longer than Mohar takes');
  assert.equal(one('Restart'), 'on-failure');
  assert.equal(one('RestartPreventExitStatus'), '2', 'exit code 2 is a configuration error (docs/configuration.md)');
  assert.match(envExample, /^MOHAR_HOST=127\.0\.0\.1$/m, 'behind the proxy, on loopback only');
  assert.match(envExample, /^MOHAR_TRUST_PROXY=127\.0\.0\.1$/m);
  assert.deepEqual(unit.get('Install')?.get('WantedBy'), ['multi-user.target']);
});

test('systemd-analyze verify accepts the unit, with no warning', (t) => {
  if (spawnSync('systemd-analyze', ['--version']).status !== 0) {
    t.skip('systemd-analyze is not installed on this machine');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'mohar-unit-'));
  try {
    const copy = join(dir, 'mohar.service');
    copyFileSync(unitPath, copy);
    // verify checks that ExecStart's program exists; where Node is not at /usr/bin/node, this machine's Node
    // stands in (the rest of the unit is checked as written).
    if (!existsSync('/usr/bin/node')) {
      writeFileSync(
        copy,
        readFileSync(copy, 'utf8').replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `),
      );
    }
    const result = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    // An unknown key or a bad value is only a warning (exit code 0): any output fails the test.
    assert.equal(`${result.stdout}${result.stderr}`.trim(), '', 'no warning');
    assert.equal(result.status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
