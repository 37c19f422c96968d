// ESLint: TypeScript rules plus import boundaries that mirror the architecture (docs/architecture.md):
// main -> server, native, pdf; server -> pdf; pdf and native know nothing of HTTP, Electron or the DB;
// renderer imports no Node module; common/ is a leaf everyone may use.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = ['node:*', 'fs', 'path', 'os', 'crypto', 'child_process', 'worker_threads', 'net', 'http', 'https', 'stream', 'zlib'];
const SERVER_LIBS = ['fastify', '@fastify/*', 'kysely', 'pg', 'better-sqlite3', 'nodemailer', 'pino'];

function forbid(groups, message) {
  return ['error', { patterns: [{ group: groups, message }] }];
}

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', 'node_modules/**', 'data/**', 'renderer/dist/**', 'renderer/dist-console/**', 'coverage/**', 'test-results/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Settings are read once in server/config.ts (parseConfig); pass a Config instead.' }],
    },
  },
  { files: ['common/**'], rules: { 'no-restricted-imports': forbid(['../*', ...SERVER_LIBS, 'electron'], 'common/ is a leaf: it imports nothing of Mohar.') } },
  { files: ['pdf/**'], rules: { 'no-restricted-imports': forbid(['**/server/**', '**/native/**', '**/main/**', '**/renderer/**', ...SERVER_LIBS, 'electron'], 'pdf/ is a pure library: no HTTP, Electron, database or token code.') } },
  { files: ['native/**'], rules: { 'no-restricted-imports': forbid(['**/server/**', '**/pdf/**', '**/main/**', '**/renderer/**', ...SERVER_LIBS, 'electron'], 'native/ is PKCS#11 token access and nothing else.') } },
  { files: ['server/**'], rules: { 'no-restricted-imports': forbid(['**/native/**', '**/main/**', '**/renderer/**', '**/cli/**', 'electron'], 'server/ depends on pdf/ and common/ only.') } },
  // Routes speak HTTP and call domain operations (server/domain/...); tables and query builders stay below them.
  {
    files: ['server/routes/**'],
    rules: {
      'no-restricted-imports': forbid(['**/native/**', '**/main/**', '**/renderer/**', '**/cli/**', 'electron', '**/storage/**', 'kysely'], 'server/routes/ calls domain operations: no storage or Kysely here (and, as all of server/, no native/, main/, renderer/ or cli/).'),
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Settings are read once in server/config.ts (parseConfig); pass a Config instead.' },
        { selector: "MemberExpression[object.property.name='db'][property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|transaction|with|selectNoFrom)$/]", message: 'Routes do not query storage: call (or add) a domain operation under server/domain/.' },
      ],
    },
  },
  { files: ['main/signer/**'], rules: { 'no-restricted-imports': forbid(['**/server/**', '**/cli/**', '**/renderer/**', '**/electron/**', '../electron', ...SERVER_LIBS, 'electron', 'electron/*'], 'main/signer is Electron-free: it imports native/, pdf/ and common/ only.') } },
  { files: ['main/electron/**'], rules: { 'no-restricted-imports': forbid(['**/renderer/**', '**/cli/**'], 'main/electron is the thin shell: it wires main/signer, server/, native/ and common/.') } },
  { files: ['renderer/**'], rules: { 'no-restricted-imports': forbid([...NODE_BUILTINS, '**/server/**', '**/native/**', '**/main/**', '**/cli/**', ...SERVER_LIBS, 'electron'], 'renderer/ is browser code: no Node modules.') } },
  // The renderer's build configuration runs in Node (Vite), not in the browser.
  { files: ['renderer/vite.config.ts', 'renderer/vite.console.config.ts', 'renderer/vite.shared.ts'], rules: { 'no-restricted-imports': 'off' } },
  // Only the settings parser, the CLI and desktop entries and test/bench harnesses may look at the environment.
  { files: ['server/config.ts', 'cli/**', 'main/electron/main.ts', 'test/**', 'bench/**', 'scripts/**'], rules: { 'no-restricted-syntax': 'off' } },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
);
