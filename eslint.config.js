// ESLint: TypeScript rules plus import boundaries that mirror the architecture (docs/architecture.md):
// main -> server, native, pdf; server -> pdf; pdf and native know nothing of HTTP, Electron or the DB;
// renderer imports no Node module; common/ is a leaf everyone may use. Inside server/ the layers are an allow-list
// (scripts/layers.mjs): each folder names the server folders it may import, and mohar/server-layers refuses any
// other, type-only imports included (routes -> http, domain; domain -> storage and the infrastructure around it;
// storage -> nothing above it). test/architecture/import-cycles.test.ts keeps the imports free of cycles.
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerViolation } from './scripts/layers.mjs';

const ROOT = dirname(fileURLToPath(import.meta.url));

const NODE_BUILTINS = [
  'node:*',
  'fs',
  'path',
  'os',
  'crypto',
  'child_process',
  'worker_threads',
  'net',
  'http',
  'https',
  'stream',
  'zlib',
];
const SERVER_LIBS = ['fastify', '@fastify/*', 'kysely', 'pg', 'better-sqlite3', 'nodemailer', 'pino'];

function forbid(groups, message, ...more) {
  return ['error', { patterns: [{ group: groups, message }, ...more] }];
}

// pdf/ and native/ are used through their index only (pdf/index.ts, native/index.ts: the headline API and the
// ports), so their insides can be rearranged without touching a caller. Applied to server/, main/, cli/, bench/.
// Not to test/: test/pdf tests the internals, and server and desktop tests forge hostile PDFs with pdf/'s writer
// parts.
const SURFACES_ONLY = [
  {
    group: ['**/pdf/*', '!**/pdf/index.js'],
    message: 'Import pdf/ through pdf/index.js, its public surface (export what you need there).',
  },
  {
    group: ['**/native/*', '!**/native/index.js'],
    message: 'Import native/ through native/index.js, its public surface.',
  },
];

const SERVER_FORBIDDEN = ['**/native/**', '**/main/**', '**/renderer/**', '**/cli/**', 'electron'];

/** The repository path (`server/domain/x.js`, `/`-separated) of an absolute path. */
function repositoryPath(path) {
  return relative(ROOT, path).split(sep).join('/');
}

/** Calls `check(node, source)` for each import and re-export whose source is a relative path. */
function relativeImports(check) {
  const visit = (node, source) => {
    if (typeof source?.value === 'string' && source.value.startsWith('.')) check(source, source.value);
  };
  return {
    ImportDeclaration: (node) => visit(node, node.source),
    ExportNamedDeclaration: (node) => visit(node, node.source),
    ExportAllDeclaration: (node) => visit(node, node.source),
    ImportExpression: (node) => visit(node, node.source),
    // `import('../x.js').T` in a type.
    TSImportType: (node) => visit(node, node.argument?.literal),
  };
}

// mohar/no-import-from: relative imports that land in one of `folders` (paths from the repository root).
// A glob cannot tell the PDF library (../../pdf from renderer/src) from the page's own viewer (renderer/src/pdf).
// mohar/server-layers: the allow-list of scripts/layers.mjs for every relative import of a server/ file.
const moharPlugin = {
  rules: {
    'no-import-from': {
      meta: {
        type: 'problem',
        schema: [
          {
            type: 'object',
            properties: { folders: { type: 'array', items: { type: 'string' } }, message: { type: 'string' } },
            additionalProperties: false,
          },
        ],
      },
      create(context) {
        const { folders, message } = context.options[0];
        return relativeImports((node, source) => {
          const target = repositoryPath(resolve(dirname(context.filename), source));
          if (folders.some((folder) => target === folder || target.startsWith(`${folder}/`))) {
            context.report({ node, message });
          }
        });
      },
    },
    'server-layers': {
      meta: { type: 'problem', schema: [] },
      create(context) {
        const from = repositoryPath(context.filename);
        return relativeImports((node, source) => {
          const message = layerViolation(from, repositoryPath(resolve(dirname(context.filename), source)));
          if (message !== undefined) context.report({ node, message });
        });
      },
    },
  },
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'release/**',
      'node_modules/**',
      'data/**',
      'renderer/dist/**',
      'renderer/dist-console/**',
      'coverage/**',
      'test-results/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Prettier (npm run lint checks it) lays code out at 120 columns; comments and code it cannot break are kept
      // there too. Long string and template literals may run on: breaking them would only hide the text.
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
      // A body Prettier had to put on a line of its own gets braces, so the next statement cannot be read as part of
      // it.
      curly: ['error', 'multi-line'],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Settings are read once in server/config.ts (parseConfig); pass a Config instead.',
        },
      ],
    },
  },
  {
    files: ['common/**'],
    rules: {
      'no-restricted-imports': forbid(
        ['../*', ...SERVER_LIBS, 'electron'],
        'common/ is a leaf: it imports nothing of Mohar.',
      ),
    },
  },
  {
    files: ['pdf/**'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/server/**', '**/native/**', '**/main/**', '**/renderer/**', ...SERVER_LIBS, 'electron'],
        'pdf/ is a pure library: no HTTP, Electron, database or token code.',
      ),
    },
  },
  {
    files: ['native/**'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/server/**', '**/pdf/**', '**/main/**', '**/renderer/**', ...SERVER_LIBS, 'electron'],
        'native/ is PKCS#11 token access and nothing else.',
      ),
    },
  },
  // The layers inside server/: an allow-list per folder (scripts/layers.mjs), for every relative import.
  {
    files: ['server/**'],
    plugins: { mohar: moharPlugin },
    rules: {
      'no-restricted-imports': forbid(SERVER_FORBIDDEN, 'server/ depends on pdf/ and common/ only.', ...SURFACES_ONLY),
      'mohar/server-layers': 'error',
    },
  },
  // Routes speak HTTP and call domain operations (server/domain/...); tables and query builders stay below them
  // (the layers keep storage/ out; Kysely and `ctx.db` are refused here). A later block's no-restricted-imports
  // replaces an earlier one's, so this one repeats what server/ forbids.
  {
    files: ['server/routes/**'],
    rules: {
      'no-restricted-imports': forbid(
        [...SERVER_FORBIDDEN, 'kysely'],
        'server/routes/ calls domain operations: no Kysely here (and, as all of server/, no native/, main/, renderer/ or cli/).',
        ...SURFACES_ONLY,
      ),
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Settings are read once in server/config.ts (parseConfig); pass a Config instead.',
        },
        {
          selector:
            "MemberExpression[object.property.name='db'][property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|transaction|with|selectNoFrom)$/]",
          message: 'Routes do not query storage: call (or add) a domain operation under server/domain/.',
        },
      ],
    },
  },
  // Published on its own as `mohar/webhooks` (package.json exports): a receiver installs nothing else.
  {
    files: ['server/webhooks/verify.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!node:crypto$)',
              message: 'server/webhooks/verify.ts is published alone as mohar/webhooks: it imports node:crypto only.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['main/signer/**'],
    rules: {
      'no-restricted-imports': forbid(
        [
          '**/server/**',
          '**/cli/**',
          '**/renderer/**',
          '**/electron/**',
          '../electron',
          ...SERVER_LIBS,
          'electron',
          'electron/*',
        ],
        'main/signer is Electron-free: it imports native/, pdf/ and common/ only.',
        ...SURFACES_ONLY,
      ),
    },
  },
  {
    files: ['main/electron/**'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/renderer/**', '**/cli/**'],
        'main/electron is the thin shell: it wires main/signer, server/, native/ and common/.',
        ...SURFACES_ONLY,
      ),
    },
  },
  { files: ['cli/**', 'bench/**'], rules: { 'no-restricted-imports': ['error', { patterns: SURFACES_ONLY }] } },
  {
    files: ['renderer/**'],
    rules: {
      'no-restricted-imports': forbid(
        [...NODE_BUILTINS, '**/server/**', '**/native/**', '**/main/**', '**/cli/**', ...SERVER_LIBS, 'electron'],
        'renderer/ is browser code: no Node modules.',
      ),
    },
  },
  {
    files: ['renderer/**'],
    plugins: { mohar: moharPlugin },
    rules: {
      'mohar/no-import-from': [
        'error',
        {
          folders: ['pdf'],
          message:
            'renderer/ does not import the PDF library pdf/ (server and desktop code); pages use pdf.js through renderer/src/pdf.',
        },
      ],
    },
  },
  // The renderer's build configuration runs in Node (Vite), not in the browser.
  {
    files: ['renderer/vite.config.ts', 'renderer/vite.console.config.ts', 'renderer/vite.shared.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  // Only the settings parser, the CLI and desktop entries, test/bench harnesses and the deployment's own
  // programs (deploy/, run in their containers) may look at the environment.
  {
    files: ['server/config.ts', 'cli/**', 'main/electron/main.ts', 'test/**', 'bench/**', 'scripts/**', 'deploy/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  // deploy/garage/init.mjs runs in a bare node image and talks HTTP with Node's own fetch.
  { files: ['deploy/**/*.mjs'], languageOptions: { globals: { fetch: 'readonly', URL: 'readonly' } } },
);
