/**
 * pdf/index.ts is pdf/'s public surface: it exports what code outside pdf/ uses (server/, main/, cli/, bench/,
 * scripts/) and nothing more, so its insides can move without touching a caller. Tests import the modules they
 * test directly and do not count as callers. A name exported here that no caller imports fails this test: drop
 * it from the index (keep it in its module).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const root = new URL('../../', import.meta.url).pathname;
const INDEX = join(root, 'pdf/index.ts');
const CALLERS = ['server', 'main', 'cli', 'bench', 'scripts'];
const SKIPPED = new Set(['node_modules', 'dist', 'dist-console']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIPPED.has(name) ? [] : sources(path);
    return /\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const parse = (file: string) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);

/** Every name pdf/index.ts exports (values and types). */
function exportedNames(): Set<string> {
  const names = new Set<string>();
  for (const statement of parse(INDEX).statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    assert.ok(clause && ts.isNamedExports(clause), 'pdf/index.ts names what it exports (no export *)');
    for (const element of clause.elements) names.add(element.name.text);
  }
  return names;
}

/** The names callers outside pdf/ import from pdf/index.js. */
function importedNames(): Set<string> {
  const names = new Set<string>();
  for (const file of CALLERS.flatMap((dir) => sources(join(root, dir)))) {
    for (const statement of parse(file).statements) {
      if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
      const specifier = statement.moduleSpecifier;
      if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
      const target = relative(root, resolve(dirname(file), specifier.text));
      if (target !== 'pdf/index.js') continue;
      const bindings = ts.isImportDeclaration(statement)
        ? statement.importClause?.namedBindings
        : statement.exportClause;
      assert.ok(bindings && !ts.isNamespaceImport(bindings), `${relative(root, file)} imports pdf/index.js by name`);
      const elements = ts.isNamedImports(bindings) || ts.isNamedExports(bindings) ? bindings.elements : [];
      for (const element of elements) names.add((element.propertyName ?? element.name).text);
    }
  }
  return names;
}

test('pdf/index.ts exports only names that code outside pdf/ imports', () => {
  const imported = importedNames();
  const unused = [...exportedNames()].filter((name) => !imported.has(name)).sort();
  assert.deepEqual(unused, [], `exported by pdf/index.ts but imported by no caller outside pdf/: ${unused.join(', ')}`);
});
