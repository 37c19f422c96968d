/**
 * Our own rules for the desktop release workflow (.github/workflows/desktop.yml), beyond the schema: when it
 * runs, on which OSes, with which Node, what it packages and checksums, who may write, and how secrets are used
 * (only as secrets.NAME, only in a step's env, and passed on only when set, with a warning when absent).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'yaml';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, string>;
}
interface Job {
  readonly 'runs-on': string;
  readonly if?: string;
  readonly needs?: string[];
  readonly permissions?: Record<string, string>;
  readonly strategy?: { matrix: { include: { os: string; label: string }[] } };
  readonly steps: Step[];
}
interface Workflow {
  readonly on: Record<string, unknown>;
  readonly permissions: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

const workflow = parse(read('.github/workflows/desktop.yml')) as Workflow;
const { smoke, package: packaging, release } = workflow.jobs;
const SIGNING_SECRETS = ['CSC_LINK', 'CSC_KEY_PASSWORD', 'APPLE_ID', 'APPLE_APP_SPECIFIC_PASSWORD', 'APPLE_TEAM_ID'];
const runs = (job: Job): string => job.steps.map((step) => step.run ?? '').join('\n');
const stepRunning = (job: Job, pattern: RegExp): Step => {
  const step = job.steps.find((s) => pattern.test(s.run ?? ''));
  assert.ok(step, `no step runs ${pattern}`);
  return step;
};

/** Every string in the workflow with where it is, e.g. ['jobs', 'package', 'steps', 5, 'env', 'X']. */
function strings(value: unknown, path: (string | number)[] = []): { path: (string | number)[]; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, [...path, i]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => strings(item, [...path, key]));
  }
  return [];
}

describe('the desktop release workflow', () => {
  test('runs on v* tags and on demand, nothing else', () => {
    assert.deepEqual(Object.keys(workflow.on).sort(), ['push', 'workflow_dispatch']);
    assert.deepEqual(workflow.on.push, { tags: ['v*'] });
  });

  test('packages on Linux, Windows and macOS runners, each with the Electron binary and Node from .nvmrc', () => {
    const oses = packaging!.strategy!.matrix.include.map((entry) => entry.os);
    assert.equal(packaging!['runs-on'], '${{ matrix.os }}');
    for (const family of [/^ubuntu-/, /^windows-/, /^macos-/]) {
      assert.ok(
        oses.some((os) => family.test(os)),
        `${oses.join(', ')}`,
      );
    }
    for (const job of [smoke!, packaging!]) {
      const script = runs(job);
      assert.match(script, /^npm ci$/m);
      assert.ok(script.indexOf('npm run desktop:fetch-electron') > script.indexOf('npm ci'), 'Electron after npm ci');
    }
    assert.match(runs(packaging!), /npm run desktop:dist -- --publish never/);
  });

  test('every job sets up Node from .nvmrc, and every action is pinned at least to a major version', () => {
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const setups = job.steps.filter((step) => step.uses?.startsWith('actions/setup-node@'));
      assert.equal(setups.length, 1, `${name}: one setup-node`);
      assert.deepEqual(setups[0]!.with?.['node-version-file'], '.nvmrc', name);
      assert.equal(setups[0]!.with?.['node-version'], undefined, `${name}: no second source of the version`);
      for (const step of job.steps.filter((s) => s.uses !== undefined)) {
        assert.match(step.uses!, /^[\w.-]+\/[\w.-]+@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$/, `${name}: ${step.uses}`);
      }
    }
    assert.equal(read('.nvmrc').trim(), '24', 'the runners get Node 24, like the suite and Electron 41');
  });

  test('installers get their SHA-256 on each runner, and the release checks them and publishes SHA256SUMS', () => {
    const sums = stepRunning(packaging!, /scripts\/release-checksums\.mjs release --out/);
    assert.match(sums.run!, /SHA256SUMS-\$\{\{ matrix\.label \}\}/);
    const upload = packaging!.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'));
    const paths = String(upload?.with?.path ?? '');
    for (const pattern of ['*.AppImage', '*.deb', '*.exe', '*.dmg', 'SHA256SUMS-*']) {
      assert.ok(paths.includes(`release/${pattern}`), `uploads ${pattern}`);
    }
    const combined = stepRunning(release!, /release-checksums\.mjs \. --out SHA256SUMS/).run!;
    assert.ok(combined.indexOf('sha256sum --check --strict SHA256SUMS-*') < combined.indexOf('release-checksums'));
    assert.match(combined, /sha256sum --check --strict SHA256SUMS$/m);
    assert.match(stepRunning(release!, /gh release upload/).run!, /assets\/\*/);
  });

  test('only the release job may write, and only for a tag, after the smoke test and every installer', () => {
    assert.deepEqual(workflow.permissions, { contents: 'read' });
    for (const [name, job] of Object.entries(workflow.jobs)) {
      if (name !== 'release') assert.equal(job.permissions, undefined, `${name} keeps the read-only default`);
    }
    assert.deepEqual(release!.permissions, { contents: 'write' });
    assert.equal(release!.if, "startsWith(github.ref, 'refs/tags/v')");
    assert.deepEqual([...release!.needs!].sort(), ['package', 'smoke']);
    assert.equal(stepRunning(release!, /gh release/).env?.GH_TOKEN, '${{ github.token }}');
  });

  test('secrets are read only as secrets.NAME, only into a step env, in full only by the packaging step', () => {
    const dist = stepRunning(packaging!, /npm run desktop:dist/);
    const distIndex = packaging!.steps.indexOf(dist);
    const seen = new Set<string>();
    for (const { path, text } of strings(workflow)) {
      for (const [, expression] of text.matchAll(/\$\{\{(.*?)\}\}/g)) {
        if (!/\bsecrets\b/.test(expression!)) continue;
        const where = path.join('.');
        const match = /^\s*secrets\.([A-Z][A-Z0-9_]*)( != '')?\s*$/.exec(expression!);
        assert.ok(match, `${where}: ${expression} (only secrets.NAME or secrets.NAME != '')`);
        assert.ok(SIGNING_SECRETS.includes(match[1]!), `${where}: unexpected secret ${match[1]}`);
        assert.deepEqual(path.slice(0, 3), ['jobs', 'package', 'steps'], where);
        assert.equal(path[4], 'env', `${where}: secrets go into a step's env, never into run, with or if`);
        // The full value only where it is used; elsewhere only whether it is set.
        if (match[2] === undefined) assert.equal(path[3], distIndex, `${where}: the secret itself`);
        seen.add(match[1]!);
      }
    }
    assert.deepEqual([...seen].sort(), [...SIGNING_SECRETS].sort());
    assert.doesNotMatch(JSON.stringify(workflow), /secrets\[|toJSON\(secrets\)/);
  });

  test('each signing setting is passed on only when its secret is set; otherwise signing is off on purpose', () => {
    const dist = stepRunning(packaging!, /npm run desktop:dist/);
    for (const name of SIGNING_SECRETS) {
      assert.equal(dist.env?.[`SECRET_${name}`], `\${{ secrets.${name} }}`);
      // export NAME="$SECRET_NAME" only inside an [ -n "$SECRET_NAME" ] guard (on the same or an enclosing line).
      const exportAt = dist.run!.indexOf(`export ${name}="$SECRET_${name}"`);
      assert.ok(exportAt > 0, `${name} is exported`);
      const guardAt = dist.run!.lastIndexOf(`-n "$SECRET_${name}"`, exportAt);
      assert.ok(guardAt >= 0 && guardAt < exportAt, `${name} is exported only when set`);
    }
    assert.match(dist.run!, /else\n\s+# .*\n\s+export CSC_IDENTITY_AUTO_DISCOVERY=false/);
    assert.match(dist.run!, /unset SECRET_CSC_LINK/);
  });

  test('a missing signing or notarisation secret is a warning in the run, not a failure', () => {
    const check = packaging!.steps.find((step) => /::warning/.test(step.run ?? ''));
    assert.ok(check, 'a step prints ::warning::');
    assert.equal(check.if, "runner.os != 'Linux'");
    for (const name of SIGNING_SECRETS) {
      assert.equal(check.env?.[`HAS_${name}`], `\${{ secrets.${name} != '' }}`);
      assert.match(check.run!, new RegExp(`\\$HAS_${name}" != true`));
    }
    assert.doesNotMatch(check.run!, /exit 1/);
  });

  test('the smoke job runs the Electron test under Xvfb with SoftHSM and pdfsig installed, and may not skip it', () => {
    const apt = stepRunning(smoke!, /apt-get install/).run!;
    for (const pkg of ['xvfb', 'softhsm2', 'opensc', 'poppler-utils']) assert.match(apt, new RegExp(`\\b${pkg}\\b`));
    assert.match(smoke!['runs-on'], /^ubuntu-/);
    const runTest = stepRunning(smoke!, /xvfb-run/);
    assert.match(runTest.run!, /node --import tsx --test test\/desktop\/electron-smoke\.test\.ts/);
    assert.equal(runTest.env?.MOHAR_TEST_ELECTRON, 'required');
    assert.ok(existsSync(new URL('test/desktop/electron-smoke.test.ts', root)));
    const script = runs(smoke!);
    assert.ok(script.indexOf('install-app-deps') > script.indexOf('desktop:build'), 'natives rebuilt for Electron');
  });

  test('electron-builder.yml makes the installers the workflow uploads, with the pages the app serves', () => {
    const builder = parse(read('electron-builder.yml')) as {
      files: string[];
      artifactName: string;
      linux: { target: string[] };
      win: { target: string[] };
      mac: { target: string[] };
    };
    assert.deepEqual(builder.linux.target, ['AppImage', 'deb']);
    assert.deepEqual(builder.win.target, ['nsis']);
    assert.deepEqual(builder.mac.target, ['dmg']);
    assert.ok(builder.files.includes('renderer/dist/**/*') && builder.files.includes('renderer/dist-console/**/*'));
    assert.doesNotMatch(builder.artifactName, /\s/, 'asset names without spaces');
  });
});
