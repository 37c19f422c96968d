/** The guarded GET for document URLs: each redirect hop re-checked, at most 3 hops, one deadline, a byte limit. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { guardedGet, GuardedGetError } from '../../../server/net/guarded-get.js';
import { startDocServer, type DocServer } from '../legacy/helpers.js';

function failsWith(kind: GuardedGetError['kind'], pattern: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof GuardedGetError, String(error));
    assert.equal(error.kind, kind, error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

describe('guarded GET', () => {
  let docs: DocServer;
  before(async () => {
    docs = await startDocServer();
  });
  after(() => docs.close());

  // The local test server plays a public host: only its exact address is allowed, everything else is judged as in
  // production.
  const asIfPublic = { isAllowedAddress: (address: string) => address === '127.0.0.1' };

  test('fetches, and follows up to three redirects', async () => {
    const direct = await guardedGet(`${docs.base}/doc.pdf`, asIfPublic);
    assert.ok(direct.bytes.equals(docs.pdf));
    assert.equal(direct.redirects, 0);
    const three = await guardedGet(`${docs.base}/hop/3`, asIfPublic);
    assert.ok(three.bytes.equals(docs.pdf));
    assert.equal(three.redirects, 3);
    assert.equal(three.url, `${docs.base}/doc.pdf`);
    await assert.rejects(guardedGet(`${docs.base}/hop/4`, asIfPublic), failsWith('refused', /more than 3 redirects/));
  });

  test('a redirect from an allowed host to a private or loopback address is refused before connecting', async () => {
    for (const target of [
      'http://10.0.0.1/doc.pdf',
      'http://127.0.0.2/doc.pdf',
      'http://[::1]/doc.pdf',
      'http://192.168.0.10/doc.pdf',
      'http://169.254.169.254/latest/meta-data/',
    ]) {
      await assert.rejects(
        guardedGet(`${docs.base}/to/${encodeURIComponent(target)}`, asIfPublic),
        failsWith('refused', /not a public address/),
        target,
      );
    }
    // The scheme of each hop is judged again too.
    await assert.rejects(
      guardedGet(`${docs.base}/to/${encodeURIComponent('ftp://example.com/x.pdf')}`, asIfPublic),
      failsWith('refused', /only http and https/),
    );
  });

  test('without any allowance, the loopback server itself is refused', async () => {
    const hits = docs.hits.get('/doc.pdf') ?? 0;
    await assert.rejects(
      guardedGet(`${docs.base}/doc.pdf`),
      failsWith('refused', /127\.0\.0\.1 is not a public address/),
    );
    await assert.rejects(
      guardedGet(`http://localhost:${new URL(docs.base).port}/doc.pdf`),
      failsWith('refused', /localhost resolves to .* not a public address/),
    );
    assert.equal(docs.hits.get('/doc.pdf') ?? 0, hits);
  });

  test('URLs with credentials, and non-http schemes, are refused', async () => {
    await assert.rejects(
      guardedGet(`http://user:pw@127.0.0.1:${new URL(docs.base).port}/doc.pdf`, { allowPrivate: true }),
      failsWith('refused', /credentials/),
    );
    await assert.rejects(
      guardedGet('file:///etc/passwd', { allowPrivate: true }),
      failsWith('refused', /only http and https/),
    );
  });

  test('size: a declared length over the limit is refused unread; a long stream is cut at the limit', async () => {
    await assert.rejects(
      guardedGet(`${docs.base}/declared-big`, { allowPrivate: true, maxBytes: 1024 }),
      failsWith('too_large', /the limit is 1024/),
    );
    await assert.rejects(
      guardedGet(`${docs.base}/endless`, { allowPrivate: true, maxBytes: 100_000 }),
      failsWith('too_large', /larger than the limit of 100000/),
    );
    const exact = await guardedGet(`${docs.base}/doc.pdf`, { allowPrivate: true, maxBytes: docs.pdf.length });
    assert.equal(exact.bytes.length, docs.pdf.length);
  });

  test('one deadline for the whole fetch; HTTP errors are failures', async () => {
    await assert.rejects(
      guardedGet(`${docs.base}/slow`, { allowPrivate: true, timeoutMs: 300 }),
      failsWith('failed', /within 0\.3 s/),
    );
    await assert.rejects(guardedGet(`${docs.base}/missing`, { allowPrivate: true }), failsWith('failed', /HTTP 404/));
  });
});
