/**
 * No import cycles between Mohar's modules. A cycle means one of its modules can run before the module it
 * reads from has finished loading (a `const` read too early throws), and it hides which file depends on which.
 * Each cycle found so far was one name in the wrong file; the failure names the files of the cycle.
 *
 * Type-only imports (`import type`, `import { type A }`, `export type … from`) are left out: the compiler
 * erases them, so they cannot change load order, and the domain's Context type names types of the modules
 * that take a Context (a type-level reference both ways that no module load ever follows).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';

const root = new URL('../../', import.meta.url).pathname;
const SOURCE_DIRS = ['server', 'pdf', 'native', 'common', 'main', 'cli', 'renderer'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'dist-console']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIPPED_DIRS.has(name) ? [] : sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function typeOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) {
    const clause = statement.exportClause;
    return (
      statement.isTypeOnly ||
      (clause !== undefined &&
        ts.isNamedExports(clause) &&
        clause.elements.length > 0 &&
        clause.elements.every((e) => e.isTypeOnly))
    );
  }
  const clause = statement.importClause;
  if (clause === undefined) return false; // `import './x.js'` runs the module
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    clause.name === undefined &&
    named !== undefined &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((e) => e.isTypeOnly)
  );
}

/** The file a relative specifier names: NodeNext's `./x.js` for `./x.ts`, or the renderer's extensionless `./x`. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.js$/, '');
  return [`${stem}.ts`, `${stem}.tsx`, base, join(base, 'index.ts'), join(base, 'index.tsx')].find(
    (p) => existsSync(p) && statSync(p).isFile() && /\.tsx?$/.test(p),
  );
}

/** Each module and the modules it imports values from, by relative path. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    const targets: string[] = [];
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
      const specifier = statement.moduleSpecifier;
      if (
        specifier === undefined ||
        !ts.isStringLiteral(specifier) ||
        !specifier.text.startsWith('.') ||
        typeOnly(statement)
      ) {
        continue;
      }
      const target = resolveSpecifier(file, specifier.text);
      if (target !== undefined) targets.push(relative(root, target));
    }
    graph.set(relative(root, file), targets);
  }
  return graph;
}

/** One cycle per back edge of a depth-first walk, each as the files around it (first file repeated at the end). */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string): void => {
    path.push(file);
    onPath.add(file);
    for (const next of graph.get(file) ?? []) {
      if (onPath.has(next)) cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) if (!done.has(file)) visit(file);
  return cycles;
}

describe('import cycles', () => {
  test('the walk sees the imports (a cycle made up here is found)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    assert.deepEqual(findCycles(graph), [['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    const real = importGraph(sources(join(root, 'server')));
    assert.ok(
      real.get('server/app.ts')!.includes('server/routes/signing-page.ts'),
      'relative .js specifiers resolve to .ts files',
    );
  });

  test('no module of server/, pdf/, native/, common/, main/, cli/ or renderer/ imports itself through others', () => {
    const graph = importGraph(SOURCE_DIRS.flatMap((dir) => sources(join(root, dir))));
    assert.ok(graph.size > 300, 'the scan finds the sources');
    const cycles = findCycles(graph);
    assert.deepEqual(
      cycles.map((cycle) => cycle.join(' -> ')),
      [],
      'import cycles: move the shared name to a module both sides may import',
    );
  });
});
