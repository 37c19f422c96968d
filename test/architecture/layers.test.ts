/**
 * The layers inside server/ are an allow-list (scripts/layers.mjs, applied by ESLint's mohar/server-layers rule):
 * every folder and top-level file of server/ has an entry, so a new folder cannot slip through unruled; the allowed
 * directions form no cycle; each exception against the direction is still needed; and the rule, run through the
 * repository's own ESLint configuration, refuses an import its table does not list.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';
import { LAYER_EXCEPTIONS, SERVER_LAYERS, layerOf } from '../../scripts/layers.mjs';

const root = new URL('../../', import.meta.url).pathname;
const server = join(root, 'server');

/** The layers that exist: each folder of server/, each TypeScript file at its top. */
function existingLayers(): string[] {
  return readdirSync(server)
    .filter((name) => statSync(join(server, name)).isDirectory() || name.endsWith('.ts'))
    .sort();
}

function sourcesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => sourcesUnder(join(path, name)));
}

/** The layers a file's relative imports land in (type-only ones included, as the rule counts them). */
function importedLayers(file: string): Set<string> {
  const specifiers = readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.[^']*)'/g);
  return new Set([...specifiers].map((m) => layerOf(relative(root, resolve(dirname(file), m[1]!)))));
}

/** One cycle of the allowed directions, or undefined when they point one way. */
function findCycle(layers: Readonly<Record<string, readonly string[]>>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (layer: string): string[] | undefined => {
    if (path.includes(layer)) return [...path.slice(path.indexOf(layer)), layer];
    if (done.has(layer)) return undefined;
    path.push(layer);
    for (const next of layers[layer] ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(layer);
    return undefined;
  };
  for (const layer of Object.keys(layers)) {
    const cycle = visit(layer);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('server layers', () => {
  test('every folder and top-level file of server/ has an entry, and every entry names layers that exist', () => {
    const existing = existingLayers();
    assert.ok(existing.includes('domain') && existing.includes('config.ts'), 'the scan finds folders and files');
    assert.deepEqual(Object.keys(SERVER_LAYERS).sort(), existing, 'scripts/layers.mjs: one entry per layer');
    for (const [layer, allowed] of Object.entries(SERVER_LAYERS)) {
      const unknown = allowed.filter((name) => !existing.includes(name));
      assert.deepEqual(unknown, [], `server/${layer} allows layers that do not exist`);
    }
  });

  test('the allowed directions point one way (no cycle between layers)', () => {
    assert.deepEqual(findCycle({ a: ['b'], b: ['c'], c: ['a'] }), ['a', 'b', 'c', 'a'], 'the walk finds a cycle');
    assert.equal(findCycle(SERVER_LAYERS)?.join(' -> '), undefined);
  });

  test('each exception is still used: its file imports the layer it is excepted for', () => {
    for (const exception of LAYER_EXCEPTIONS) {
      const reached = sourcesUnder(join(root, exception.from)).some((file) => importedLayers(file).has(exception.to));
      assert.ok(reached, `${exception.from} no longer imports server/${exception.to}: remove the exception`);
    }
  });

  describe('the rule, through eslint.config.js', () => {
    const eslint = new ESLint({ cwd: root });
    const layerProblems = async (filePath: string, code: string): Promise<string[]> => {
      const [result] = await eslint.lintText(code, { filePath });
      return result!.messages.filter((m) => m.ruleId === 'mohar/server-layers').map((m) => m.message);
    };

    test('refuses an import its table does not list, type-only ones too', async () => {
      const value = await layerProblems('server/storage/probe.ts', "export { STORAGE } from '../domain/probe.js';\n");
      assert.match(value.join(), /server\/storage may not import server\/domain/);
      const typeOnly = await layerProblems(
        'server/storage/probe.ts',
        "import type { Routes } from '../routes/probe.js';\nexport type Probe = Routes;\n",
      );
      assert.match(typeOnly.join(), /server\/storage may not import server\/routes/);
      const outside = await layerProblems('server/jobs/probe.ts', "export * from '../../test/support/probe.js';\n");
      assert.match(outside.join(), /server\/ imports only server\/, common\/ and pdf\/: not test\//);
    });

    test('refuses any server import of a folder without an entry (common/ and pdf/ stay open)', async () => {
      const problems = await layerProblems('server/unruled/probe.ts', "export * from '../../common/errors.js';\n");
      assert.deepEqual(problems, []);
      const inward = await layerProblems('server/unruled/probe.ts', "export * from '../storage/schema.js';\n");
      assert.match(inward.join(), /server\/unruled has no entry in scripts\/layers\.mjs/);
    });

    test('lets a listed import, its own folder, common/ and pdf/ through', async () => {
      const code = [
        "import type { Database } from '../storage/schema.js';",
        "import { MoharError } from '../../common/errors.js';",
        "import { inspectPdf } from '../../pdf/index.js';",
        "import { probe } from './probe-helper.js';",
        'export type Probe = [Database, MoharError, typeof inspectPdf, typeof probe];',
        '',
      ].join('\n');
      assert.deepEqual(await layerProblems('server/domain/probe.ts', code), []);
    });
  });
});
