/**
 * Our own rules for the desktop release workflow (.github/workflows/desktop.yml), beyond the schema: when it
 * runs, on which OSes, with which Node, what it packages and checksums, who may write, and how secrets are used
 * (only as secrets.NAME, only in a step's env, and passed on only when set, with a warning when absent).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import {
  secretProblems,
  SIGNING_SECRETS,
  type Job,
  type MutableWorkflow,
  type Step,
  type Workflow,
} from './workflow-model.js';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

const workflow = parse(read('.github/workflows/desktop.yml')) as Workflow;
const { smoke, package: packaging, release } = workflow.jobs;
const runs = (job: Job): string => job.steps.map((step) => step.run ?? '').join('\n');
const stepRunning = (job: Job, pattern: RegExp): Step => {
  const step = job.steps.find((s) => pattern.test(s.run ?? ''));
  assert.ok(step, `no step runs ${pattern}`);
  return step;
};

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
    assert.deepEqual(secretProblems(workflow), []);
  });

  test('and the rule does catch a secret in a script, in an if, as a whole, or in full in another step', () => {
    const mutated = (change: (copy: MutableWorkflow) => void): string[] => {
      const copy = structuredClone(workflow) as unknown as MutableWorkflow;
      change(copy);
      return secretProblems(copy as unknown as Workflow);
    };
    const distAt = packaging!.steps.findIndex((step) => /npm run desktop:dist/.test(step.run ?? ''));
    const cases: [string, (copy: MutableWorkflow) => void, RegExp][] = [
      ['inlined into run', (c) => (c.jobs.package.steps[distAt]!.run += '\necho ${{ secrets.CSC_LINK }}'), /\.run: /],
      ['in an if', (c) => (c.jobs.package.steps[distAt]!.if = "${{ secrets.APPLE_ID != '' }}"), /\.if: /],
      ['all at once', (c) => (c.jobs.smoke.steps[0]!.env = { ALL: '${{ toJSON(secrets) }}' }), /only secrets\.NAME/],
      ['unknown secret', (c) => (c.jobs.package.steps[distAt]!.env!.X = '${{ secrets.NPM_TOKEN }}'), /NPM_TOKEN/],
      ['bare, outside ${{ }}', (c) => (c.jobs.release.if = 'secrets.CSC_LINK'), /outside an expression/],
      [
        'in full elsewhere',
        (c) => (c.jobs.package.steps[distAt - 1]!.env = { CSC_LINK: '${{ secrets.CSC_LINK }}' }),
        /the secret itself/,
      ],
    ];
    for (const [what, change, reason] of cases) {
      const problems = mutated(change);
      assert.ok(
        problems.some((problem) => reason.test(problem)),
        `${what}: ${problems.join(' | ') || 'no problem found'}`,
      );
    }
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
      npmRebuild: boolean;
      asarUnpack: string[];
      linux: { target: string[] };
      win: { target: string[] };
      mac: { target: string[] };
    };
    assert.deepEqual(builder.linux.target, ['AppImage', 'deb']);
    assert.deepEqual(builder.win.target, ['nsis']);
    assert.deepEqual(builder.mac.target, ['dmg']);
    assert.ok(builder.files.includes('renderer/dist/**/*') && builder.files.includes('renderer/dist-console/**/*'));
    assert.doesNotMatch(builder.artifactName, /\s/, 'asset names without spaces');
    // pkcs11js and better-sqlite3 rebuilt for Electron's ABI on each runner, and loadable outside the asar archive.
    assert.equal(builder.npmRebuild, true);
    assert.deepEqual(builder.asarUnpack, ['**/*.node']);
  });
});
