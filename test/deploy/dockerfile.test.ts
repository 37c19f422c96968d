/**
 * The Dockerfile's commands, run outside Docker (no image can be pulled or built where the suite runs).
 *
 * SLOW (about 3 to 6 minutes on 2 cores): a clean copy of the repository's tracked files, filtered by
 * .dockerignore like a build context, then the build stage's steps in order (its COPY and its non-system RUN
 * commands: npm ci, the native rebuild, npm run build, npm prune), then the runtime stage's COPY --from=build
 * (every source must exist after the build), then the runtime stage's ENTRYPOINT + CMD with its ENV, until
 * /healthz answers and the image's own HEALTHCHECK command passes, then SIGTERM.
 *
 * What differs from `docker build` (docs/deployment.md, "What was and was not run here"): the host's Node 24 and
 * toolchain stand in for the node:24-bookworm-slim stages, so `apt-get` and the user account setup are not run
 * (the test checks the toolchain the build stage installs is on this machine instead); npm installs with
 * --prefer-offline from the local npm cache; the server runs as this test's user, on a free port.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, matchesGlob } from 'node:path';
import { after, test } from 'node:test';
import { parseDockerfile, type Stage } from './dockerfile-parse.js';

const repo = new URL('../../', import.meta.url).pathname;
const dockerfile = parseDockerfile(readFileSync(join(repo, 'Dockerfile'), 'utf8'));
const stage = (name: string): Stage => {
  const found = dockerfile.find((s) => s.name === name);
  assert.ok(found, `the Dockerfile has a stage named ${name}`);
  return found;
};

const scratch = mkdtempSync(join(tmpdir(), 'mohar-dockerfile-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Docker's .dockerignore rule: a pattern excludes the path it matches and everything under it. */
function ignored(path: string, patterns: readonly string[]): boolean {
  const parts = path.split('/');
  return parts.some((_, i) => {
    const prefix = parts.slice(0, i + 1).join('/');
    return patterns.some((pattern) => matchesGlob(prefix, pattern));
  });
}

/** The build context: the tracked files (what a clean checkout has), minus .dockerignore. */
function buildContext(): string {
  const context = join(scratch, 'context');
  const patterns = readFileSync(join(repo, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  assert.ok(!patterns.some((p) => p.startsWith('!')), 'this test does not implement ! exceptions in .dockerignore');
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: repo, encoding: 'utf8' }).split('\0');
  for (const file of tracked.filter((f) => f !== '' && !ignored(f, patterns))) {
    mkdirSync(dirname(join(context, file)), { recursive: true });
    cpSync(join(repo, file), join(context, file));
  }
  return context;
}

/** A stage's file system root in the scratch directory; absolute paths of the Dockerfile land under it. */
const rootOf = (name: string): string => join(scratch, `stage-${name}`);
const inStage = (name: string, path: string): string => join(rootOf(name), path);

function copyStep(
  stageName: string,
  workdir: string,
  copy: { from?: string; sources: readonly string[]; destination: string },
  context: string,
): void {
  const destination = copy.destination.startsWith('/')
    ? inStage(stageName, copy.destination)
    : join(inStage(stageName, workdir), copy.destination);
  for (const source of copy.sources) {
    const from = copy.from === undefined ? join(context, source) : inStage(copy.from, source);
    assert.ok(existsSync(from), `COPY ${copy.from ? `--from=${copy.from} ` : ''}${source}: the source exists`);
    // `COPY dir/ dest` copies the folder's contents; so does cpSync of a directory onto a directory.
    const target =
      copy.sources.length > 1 || copy.destination.endsWith('/')
        ? join(destination, source.split('/').at(-1)!)
        : destination;
    mkdirSync(dirname(target), { recursive: true });
    if (copy.from === undefined) cpSync(from, source === '.' ? destination : target, { recursive: true });
    // From an earlier stage, which nothing uses afterwards (as Docker discards it): moving gives the same
    // result as copying without writing node_modules a second time.
    else renameSync(from, target);
  }
}

/** apt-get lines install system packages (not run here); the rest runs in the stage's working directory. */
const isSystemStep = (command: string): boolean =>
  /^(apt-get|groupadd|useradd|mkdir|chown|chmod)\b/.test(command.trim());

/** Runs the build stage; says which commands ran and how long each took (the test's diagnostics). */
function runBuildStage(context: string): { command: string; seconds: number }[] {
  const build = stage('build');
  const ran: { command: string; seconds: number }[] = [];
  mkdirSync(inStage('build', build.workdir), { recursive: true });
  for (const step of build.steps) {
    if (step.kind === 'copy') {
      copyStep('build', build.workdir, step.copy, context);
      continue;
    }
    if (isSystemStep(step.command)) {
      // The packages it installs are the toolchain node-gyp needs: this machine must have them too.
      for (const pkg of /install\s+(.*?)(&&|$)/s
        .exec(step.command)?.[1]
        ?.split(/\s+/)
        .filter((w) => w && !w.startsWith('-')) ?? []) {
        assert.equal(
          spawnSync('sh', ['-c', `command -v ${pkg}`]).status,
          0,
          `${pkg} (installed by the build stage) is on this machine`,
        );
      }
      continue;
    }
    // Only npm's install reaches the registry: the local cache serves it here (no other change to the command).
    const command = step.command.replace(/\bnpm ci\b/, 'npm ci --prefer-offline');
    const started = performance.now();
    const result = spawnSync('sh', ['-c', command], {
      cwd: inStage('build', build.workdir),
      env: { ...process.env, ...build.env },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(result.status, 0, `RUN ${step.command} failed:\n${result.stdout}\n${result.stderr}`);
    ran.push({ command: step.command, seconds: Math.round((performance.now() - started) / 1000) });
  }
  return ran;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `node` of an exec form is this test's Node 24 (what node:24-bookworm-slim has on its PATH). */
const resolveNode = (argv: readonly string[]): string[] =>
  argv.map((a, i) => (i === 0 && a === 'node' ? process.execPath : a));

test('the Dockerfile is two stages on the Node 24 line; the runtime stage runs as a non-root user', () => {
  assert.deepEqual(
    dockerfile.map((s) => s.name),
    ['build', 'runtime'],
  );
  const nvmrc = readFileSync(join(repo, '.nvmrc'), 'utf8').trim();
  for (const s of dockerfile) {
    assert.match(s.image, new RegExp(`^node:${nvmrc}-bookworm-slim$`), `${s.name} is on Node ${nvmrc}`);
  }
  const runtime = stage('runtime');
  assert.ok(runtime.user && !/^(0|root)(:|$)/.test(runtime.user), `USER ${runtime.user} is not root`);
  assert.equal(runtime.env.MOHAR_HOST, '0.0.0.0', 'inside a container the server listens on all interfaces');
  assert.deepEqual(runtime.volumes, [runtime.env.MOHAR_DATA_DIR], 'the data dir is the volume');
  assert.deepEqual(runtime.expose, [runtime.env.MOHAR_PORT]);
  assert.equal(runtime.stopSignal, 'SIGTERM');
  assert.deepEqual(runtime.cmd, ['serve']);
  assert.ok(
    runtime.healthcheck?.some((a) => a.includes('/healthz')),
    'the image checks /healthz',
  );
  assert.ok(
    !runtime.steps.some((s) => s.kind === 'copy' && s.copy.from === undefined),
    'the runtime stage copies only from the build stage',
  );
});

test(
  'SLOW: the build stage builds a clean checkout, the runtime stage starts from its output and stops on SIGTERM',
  { timeout: 15 * 60_000 },
  async (t) => {
    const context = buildContext();
    assert.ok(
      !existsSync(join(context, 'node_modules')) && !existsSync(join(context, 'dist')),
      'the context has nothing built',
    );
    const ran = runBuildStage(context);
    for (const { command, seconds } of ran) t.diagnostic(`RUN ${command}: ${seconds} s`);
    assert.ok(
      ran.some((r) => /^npm ci\b/.test(r.command)) && ran.some((r) => r.command.includes('npm run build')),
      `ran: ${ran.map((r) => r.command).join(' | ')}`,
    );

    const runtime = stage('runtime');
    const workdir = inStage('runtime', runtime.workdir);
    mkdirSync(workdir, { recursive: true });
    for (const step of runtime.steps) {
      if (step.kind === 'copy') copyStep('runtime', runtime.workdir, step.copy, context);
    }
    // The dev dependencies were pruned: the runtime has none of them.
    assert.ok(
      !existsSync(join(workdir, 'node_modules', 'typescript')),
      'typescript (a dev dependency) is not in the runtime',
    );
    assert.ok(
      existsSync(join(workdir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')),
      'better-sqlite3 is compiled',
    );

    const port = await freePort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      ...runtime.env,
      // The volume's place in the scratch directory, and a free port: the only settings changed from the image's.
      MOHAR_DATA_DIR: join(scratch, 'volume'),
      MOHAR_PORT: String(port),
      MOHAR_LOG_LEVEL: 'warn',
    };
    mkdirSync(env.MOHAR_DATA_DIR!, { recursive: true });
    const [command, ...args] = resolveNode([...runtime.entrypoint, ...runtime.cmd]);
    const child = spawn(command!, args, { cwd: workdir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let health: Response | undefined;
      for (let i = 0; i < 120 && child.exitCode === null; i++) {
        health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        if (health?.ok) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      assert.equal(health?.status, 200, `/healthz answers:\n${output}`);
      assert.deepEqual(await health.json(), { status: 'ok' });
      assert.match(
        output,
        /Mohar office server on http:\/\/0\.0\.0\.0:\d+ \(SQLite in /,
        'it listens as the image says',
      );
      // The pages the runtime stage copied are served, not the "not built" 503.
      assert.equal((await fetch(`http://127.0.0.1:${port}/app/`)).status, 200, 'the console is served');
      assert.equal((await fetch(`http://127.0.0.1:${port}/verify`)).status, 200, 'the verify page is served');

      const [checkCommand, ...checkArgs] = resolveNode(runtime.healthcheck!);
      const check = spawnSync(checkCommand!, checkArgs, { cwd: workdir, env, encoding: 'utf8' });
      assert.equal(check.status, 0, `the image's HEALTHCHECK passes: ${check.stderr}`);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, `SIGTERM stops the server cleanly:\n${output}`);
  },
);
