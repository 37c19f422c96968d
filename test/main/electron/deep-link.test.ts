/** mohar://sign?url=… deep links: only signing pages of trusted Mohar servers are opened. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deepLinkInArgv, parseDeepLink } from '../../../main/electron/deep-link.js';

const ORIGINS = ['https://mohar.example.com', 'http://127.0.0.1:8080'];
const TOKEN = 'q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c';
const link = (url: string) => `mohar://sign?url=${encodeURIComponent(url)}`;

describe('main/electron: deep links', () => {
  test('a signing URL of a trusted server opens', () => {
    assert.deepEqual(parseDeepLink(link(`https://mohar.example.com/sign/${TOKEN}`), ORIGINS), {
      ok: true,
      signingUrl: `https://mohar.example.com/sign/${TOKEN}`,
    });
    // Behind a proxy prefix, with a query (e.g. the language), on the embedded loopback server.
    assert.deepEqual(parseDeepLink(link(`https://mohar.example.com/esign/sign/${TOKEN}?lang=hi`), ORIGINS), {
      ok: true,
      signingUrl: `https://mohar.example.com/esign/sign/${TOKEN}?lang=hi`,
    });
    assert.deepEqual(parseDeepLink(link(`http://127.0.0.1:8080/sign/${TOKEN}`), ORIGINS), {
      ok: true,
      signingUrl: `http://127.0.0.1:8080/sign/${TOKEN}`,
    });
    // Scheme and host are case-insensitive; the url parameter may come unencoded when it has no & or #.
    assert.equal(parseDeepLink(`MOHAR://SIGN?url=https://mohar.example.com/sign/${TOKEN}`, ORIGINS).ok, true);
    assert.equal(
      parseDeepLink(`mohar://sign/?url=${encodeURIComponent(`https://mohar.example.com/sign/${TOKEN}`)}`, ORIGINS).ok,
      true,
    );
  });

  test('everything else is refused with a reason', () => {
    const cases: [string, RegExp][] = [
      ['', /not a Mohar link/],
      ['https://mohar.example.com/sign/x', /not a mohar: link/],
      [`mohar://open?url=${encodeURIComponent(`https://mohar.example.com/sign/${TOKEN}`)}`, /unknown Mohar link/],
      [`mohar://sign/extra?url=${encodeURIComponent(`https://mohar.example.com/sign/${TOKEN}`)}`, /unknown Mohar link/],
      [`mohar://user@sign?url=${encodeURIComponent(`https://mohar.example.com/sign/${TOKEN}`)}`, /unexpected parts/],
      [`mohar://sign:99?url=${encodeURIComponent(`https://mohar.example.com/sign/${TOKEN}`)}`, /unknown Mohar link/],
      [`${link(`https://mohar.example.com/sign/${TOKEN}`)}#x`, /unexpected parts/],
      ['mohar://sign', /exactly one url parameter/],
      [
        `${link(`https://mohar.example.com/sign/${TOKEN}`)}&url=${encodeURIComponent('https://evil.example/sign/' + TOKEN)}`,
        /exactly one url parameter/,
      ],
      [`${link(`https://mohar.example.com/sign/${TOKEN}`)}&next=1`, /exactly one url parameter/],
      [link('not a url'), /not a URL/],
      [link(`http://mohar.example.com/sign/${TOKEN}`), /must be https/],
      [link(`javascript:alert(1)//sign/${TOKEN}`), /must be https/],
      [link(`file:///sign/${TOKEN}`), /must be https/],
      [link(`https://user:pw@mohar.example.com/sign/${TOKEN}`), /must be https/],
      [link(`https://evil.example/sign/${TOKEN}`), /not a Mohar server this app trusts/],
      [link(`https://mohar.example.com.evil.example/sign/${TOKEN}`), /not a Mohar server this app trusts/],
      [link(`https://mohar.example.com:444/sign/${TOKEN}`), /not a Mohar server this app trusts/],
      [link(`http://127.0.0.1:9999/sign/${TOKEN}`), /not a Mohar server this app trusts/],
      [link(`https://mohar.example.com/sign/${TOKEN}#frag`), /fragment/],
      [link('https://mohar.example.com/backend/api/v1/envelopes'), /not a Mohar signing page/],
      [link('https://mohar.example.com/sign/short'), /not a Mohar signing page/],
      [link(`https://mohar.example.com/sign/${TOKEN}/../../backend/x`), /not a Mohar signing page/],
      [link(`https://mohar.example.com/sign/${TOKEN}<script>`), /not a Mohar signing page/],
      [`mohar://sign?url=${'a'.repeat(5000)}`, /not a Mohar link/],
    ];
    for (const [raw, reason] of cases) {
      const result = parseDeepLink(raw, ORIGINS);
      assert.equal(result.ok, false, raw);
      assert.match((result as { reason: string }).reason, reason, raw);
    }
  });

  test('the link among command-line arguments (Windows, Linux)', () => {
    assert.equal(deepLinkInArgv(['/opt/Mohar/mohar', '--no-sandbox', 'mohar://sign?url=x']), 'mohar://sign?url=x');
    assert.equal(deepLinkInArgv(['C:\\Mohar\\Mohar.exe', 'MOHAR://sign?url=y']), 'MOHAR://sign?url=y');
    assert.equal(deepLinkInArgv(['/opt/Mohar/mohar', 'https://mohar.example.com']), undefined);
  });
});
