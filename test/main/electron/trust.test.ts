/** The origin rules of Mohar Desktop: which pages may use the token bridge and where windows may navigate. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isTrustedSender, navigationDecision, trustableOrigin, trustedOrigins } from '../../../main/electron/trust.js';

describe('main/electron: trusted origins', () => {
  test('https origins, and http only on loopback; credentials never', () => {
    assert.equal(trustableOrigin('https://sign.example.com/backend'), 'https://sign.example.com');
    assert.equal(trustableOrigin('HTTPS://Sign.Example.COM:443/x'), 'https://sign.example.com');
    assert.equal(trustableOrigin('https://sign.example.com:8443'), 'https://sign.example.com:8443');
    assert.equal(trustableOrigin('http://127.0.0.1:8080/'), 'http://127.0.0.1:8080');
    assert.equal(trustableOrigin('http://localhost:8080'), 'http://localhost:8080');
    assert.equal(trustableOrigin('http://[::1]:8080'), 'http://[::1]:8080');
    assert.equal(trustableOrigin('http://sign.example.com'), null);
    assert.equal(trustableOrigin('http://127.0.0.1.evil.example'), null);
    assert.equal(trustableOrigin('https://user:pw@sign.example.com'), null);
    assert.equal(trustableOrigin('file:///etc/passwd'), null);
    assert.equal(trustableOrigin('javascript:alert(1)'), null);
    assert.equal(trustableOrigin('not a url'), null);
  });

  test('the server first, extra origins once, untrustable extras dropped; an http server URL off loopback is refused', () => {
    assert.deepEqual(
      trustedOrigins('https://mohar.example.com/base', [
        'https://other.example.com/',
        'https://mohar.example.com',
        'http://plain.example.com',
      ]),
      ['https://mohar.example.com', 'https://other.example.com'],
    );
    assert.throws(() => trustedOrigins('http://mohar.example.com'), /must be https/);
  });

  test('only the top frame of a trusted page may call the bridge', () => {
    const origins = ['https://mohar.example.com', 'http://127.0.0.1:8080'];
    assert.equal(isTrustedSender({ url: 'https://mohar.example.com/sign/abc', isMainFrame: true }, origins), true);
    assert.equal(isTrustedSender({ url: 'http://127.0.0.1:8080/sign/abc', isMainFrame: true }, origins), true);
    assert.equal(
      isTrustedSender({ url: 'https://mohar.example.com/sign/abc', isMainFrame: false }, origins),
      false,
      'an iframe',
    );
    assert.equal(isTrustedSender({ url: 'http://127.0.0.1:8081/', isMainFrame: true }, origins), false, 'another port');
    assert.equal(
      isTrustedSender({ url: 'https://mohar.example.com.evil.example/', isMainFrame: true }, origins),
      false,
    );
    assert.equal(
      isTrustedSender({ url: 'http://mohar.example.com/sign/abc', isMainFrame: true }, origins),
      false,
      'http to the https server',
    );
    assert.equal(isTrustedSender({ url: 'about:blank', isMainFrame: true }, origins), false);
    assert.equal(isTrustedSender({ url: 'data:text/html,hi', isMainFrame: true }, origins), false);
    assert.equal(isTrustedSender(null, origins), false);
  });

  test('navigation: stay on trusted origins, hand other https pages to the browser, refuse the rest', () => {
    const origins = ['https://mohar.example.com'];
    assert.equal(navigationDecision('https://mohar.example.com/done', origins), 'allow');
    assert.equal(navigationDecision('https://shop.example.com/return?ok=1', origins), 'external');
    assert.equal(navigationDecision('http://shop.example.com/return', origins), 'deny');
    assert.equal(navigationDecision('file:///etc/passwd', origins), 'deny');
    assert.equal(navigationDecision('mohar://sign?url=x', origins), 'deny');
    assert.equal(navigationDecision('https://u:p@shop.example.com/', origins), 'deny');
  });
});
