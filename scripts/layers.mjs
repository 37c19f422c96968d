// The layers inside server/ as an allow-list (docs/architecture.md): each folder, and each file at the top of
// server/, names the server folders and files it may import; anything it does not name is refused. ESLint's
// mohar/server-layers rule (eslint.config.js) applies it to every relative import, type-only ones included (a type
// import is still a dependency); test/architecture/layers.test.ts checks that everything under server/ has an
// entry here. Plain JavaScript, so that eslint.config.js loads it without TypeScript.
//
// The direction: routes -> http, domain; domain -> storage and the infrastructure around it (jobs, mail,
// webhooks, audit, seal, net, aadhaar); storage -> nothing above it. The entry files (start.ts, app.ts,
// runtime.ts, shutdown.ts) wire everything. common/ and pdf/ (through pdf/index.js) are open to all.

/** Outside server/, what every server file may import. */
export const SHARED = ['common', 'pdf'];

/** A key is a folder under server/ (with everything below it) or a file at the top of server/. */
export const SERVER_LAYERS = {
  // Entry points and composition.
  'start.ts': [
    'app.ts',
    'runtime.ts',
    'shutdown.ts',
    'config.ts',
    'config-blobs.ts',
    'metrics',
    'routes',
    'http',
    'domain',
    'jobs',
    'mail',
    'webhooks',
    'storage',
  ],
  'app.ts': ['metrics', 'routes', 'http', 'domain', 'version.ts'],
  'runtime.ts': ['config.ts', 'domain', 'net', 'seal', 'storage'],
  'shutdown.ts': ['routes', 'http', 'domain', 'jobs', 'webhooks'],
  // Per-app Prometheus registry: wraps the Context's blob store and PDF pool, times the routes.
  metrics: ['config-ops.ts', 'http', 'domain', 'storage'],
  // HTTP: routes call domain operations through http/'s hooks and schemas.
  routes: ['http', 'domain'],
  http: ['domain'],
  domain: ['config.ts', 'config-esign.ts', 'jobs', 'mail', 'webhooks', 'audit', 'seal', 'net', 'aadhaar', 'storage'],
  // `mohar backup`, `restore` and `backup verify`: run by the CLI over storage, the seal and the audit trail.
  backup: ['config.ts', 'version.ts', 'audit', 'seal', 'storage'],
  // Infrastructure around the domain.
  mail: ['config.ts', 'jobs', 'seal', 'net', 'storage'],
  webhooks: ['config.ts', 'jobs', 'seal', 'net', 'storage'],
  audit: ['storage'],
  seal: ['config.ts', 'storage'],
  jobs: ['storage'],
  net: ['config.ts'],
  aadhaar: ['config-esign.ts'],
  trust: [],
  storage: ['config-blobs.ts'],
  // Settings, read once (config.ts parses them; each config-*.ts is one group).
  'config.ts': ['config-blobs.ts', 'config-error.ts', 'config-esign.ts', 'config-ops.ts'],
  'config-blobs.ts': ['config-error.ts'],
  'config-esign.ts': ['config-error.ts'],
  'config-ops.ts': ['config-error.ts'],
  'config-error.ts': [],
  'version.ts': [],
};

/**
 * Imports that go against the direction above and are allowed for now, each named by the importing file (or a
 * folder: everything below it) and the layer it reaches. Each is a debt: remove its line once the import is gone.
 */
export const LAYER_EXCEPTIONS = [];

/** The layer a repository path (`server/domain/x.ts`, `server/config.js`, `common/errors.js`) belongs to. */
export function layerOf(path) {
  const parts = path.split('/');
  if (parts[0] !== 'server' || parts.length < 2) return parts[0];
  return parts.length === 2 ? parts[1].replace(/\.js$/, '.ts') : parts[1];
}

/** Why `from` may not import `to` (repository paths, `/`-separated), or undefined when it may. */
export function layerViolation(from, to) {
  const fromLayer = layerOf(from);
  const toLayer = layerOf(to);
  if (to.split('/')[0] !== 'server') {
    if (SHARED.includes(toLayer)) return undefined;
    return `server/ imports only server/, ${SHARED.map((s) => `${s}/`).join(' and ')}: not ${toLayer}/.`;
  }
  if (fromLayer === toLayer) return undefined;
  const allowed = SERVER_LAYERS[fromLayer];
  if (allowed === undefined) {
    return `server/${fromLayer} has no entry in scripts/layers.mjs: name the layers it may import there.`;
  }
  if (allowed.includes(toLayer)) return undefined;
  const excepted = LAYER_EXCEPTIONS.some((e) => e.to === toLayer && (from === e.from || from.startsWith(`${e.from}/`)));
  if (excepted) return undefined;
  return (
    `server/${fromLayer} may not import server/${toLayer}: it may import ${allowed.join(', ') || 'no other layer'} ` +
    `(scripts/layers.mjs; docs/architecture.md says which way the layers point).`
  );
}
