/** The doctor's driver table against a fake file system, and what diagnose() says about it (pure). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkMiddleware, diagnose } from '../../../main/signer/index.js';

const fs = (...present: string[]) => {
  const set = new Set(present);
  return (path: string) => set.has(path);
};
const bare = { now: new Date('2026-06-01T00:00:00Z'), loadFailures: [], tokens: [], anchors: [] };

test('Linux: ePass2003 installed, Trust Key only as a folder, the rest missing', () => {
  const status = checkMiddleware({
    platform: 'linux',
    exists: fs('/usr/lib/libcastle_v2.so.1.0.0', '/usr/lib/WatchData/TRUSTKEY'),
  });
  const byProduct = Object.fromEntries(status.map((s) => [s.product, s]));
  assert.equal(byProduct.ePass2003!.state, 'installed');
  assert.deepEqual(byProduct.ePass2003!.found, ['/usr/lib/libcastle_v2.so.1.0.0']);
  assert.equal(byProduct['Trust Key']!.state, 'folder-only');
  for (const product of ['ProxKey', 'mToken CryptoID', 'eToken', 'OpenSC']) {
    assert.equal(byProduct[product]!.state, 'missing');
  }

  const report = diagnose({ ...bare, middleware: status, namedModules: [] });
  const codes = report.findings.map((f) => f.code);
  assert.deepEqual(codes, ['middleware_installed', 'middleware_folder_only', 'middleware_missing', 'no_token']);
  const missing = report.findings.find((f) => f.code === 'middleware_missing')!;
  assert.match(missing.summary.en, /ProxKey, mToken CryptoID, eToken, OpenSC/);
  assert.match(missing.summary.hi, /इनके ड्राइवर नहीं मिले: ProxKey/);
  assert.equal(report.worst, 'warning');
});

test('Windows: ProxKey and SafeNet found in System32', () => {
  const status = checkMiddleware({
    platform: 'win32',
    exists: fs('C:\\Windows\\System32\\SignatureP11.dll', 'C:\\Windows\\System32\\eTPKCS11.dll'),
  });
  const installed = status.filter((s) => s.state === 'installed').map((s) => s.product);
  assert.deepEqual(installed.sort(), ['ProxKey', 'eToken']);
});

test('no driver at all is an error with what to install, in both languages', () => {
  const report = diagnose({
    ...bare,
    middleware: checkMiddleware({ platform: 'darwin', exists: fs() }),
    namedModules: [],
  });
  assert.deepEqual(
    report.findings.map((f) => f.code),
    ['middleware_none'],
  );
  assert.equal(report.worst, 'error');
  assert.match(report.findings[0]!.advice.en, /ePass2003, ProxKey, mToken, SafeNet/);
  assert.match(report.findings[0]!.advice.hi, /ड्राइवर/);
  // A driver the signer named counts: no "none" error then, only a token to insert.
  const named = diagnose({
    ...bare,
    middleware: checkMiddleware({ platform: 'darwin', exists: fs() }),
    namedModules: ['/opt/vendor/libp11.dylib'],
    loadFailures: [{ path: '/opt/vendor/libp11.dylib', message: 'wrong architecture' }],
  });
  assert.deepEqual(
    named.findings.map((f) => f.code),
    ['middleware_missing', 'module_load_failed', 'no_token'],
  );
  assert.match(named.findings[1]!.summary.en, /wrong architecture/);
});

test("the clock's reference: a server's Date header, or null when it cannot be read", async () => {
  const { serverTime } = await import('../../../main/signer/index.js');
  const answering = (async () =>
    new Response(null, { headers: { date: 'Sun, 29 Nov 2026 10:00:00 GMT' } })) as unknown as typeof fetch;
  assert.deepEqual(await serverTime('https://mohar.example/', answering), {
    at: new Date('2026-11-29T10:00:00Z'),
    source: 'mohar.example',
  });
  const failing = (async () => {
    throw new Error('offline');
  }) as unknown as typeof fetch;
  assert.equal(await serverTime('https://mohar.example/', failing), null);
});

test('signing links become the signer API, anything else is refused', async () => {
  const { signerApiOf } = await import('../../../main/signer/batch-fetch.js');
  const token = 'AbCdEfGhIjKlMnOpQrStUv';
  assert.equal(
    signerApiOf(`https://office.example/mohar/sign/${token}`),
    `https://office.example/mohar/backend/api/v1/signing/${token}`,
  );
  assert.equal(
    signerApiOf(`https://office.example/sign/${token}/`),
    `https://office.example/backend/api/v1/signing/${token}`,
  );
  for (const bad of [
    'not a url',
    `ftp://office.example/sign/${token}`,
    'https://office.example/sign/short',
    `https://office.example/verify/${token}`,
  ]) {
    assert.equal(signerApiOf(bad), null, bad);
  }
});
