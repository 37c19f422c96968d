import assert from 'node:assert/strict';
import { createPrivateKey, sign } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { SignedXml } from 'xml-crypto';
import { isMoharError } from '../../../common/errors.js';
import { parseEsignResponse } from '../../../server/aadhaar/messages.js';
import { ALGORITHMS, parseXml, signEnveloped, verifyEnveloped, type XmlSigner } from '../../../server/aadhaar/xml.js';
import { createTestPki, type SoftwareCredential } from '../../support/pki.js';

const pki = createTestPki();
after(() => pki.cleanup());
const esp = pki.issueSoftwareSigner({ commonName: 'ESP response signing' });
const attacker = pki.issueSoftwareSigner({ commonName: 'Someone else' });

function signerOf(cred: SoftwareCredential): XmlSigner {
  const key = createPrivateKey(cred.keyPem);
  return { certificate: cred.certDer, keyType: 'RSA', sign: async (data) => new Uint8Array(sign('sha256', data, key)) };
}

const RESPONSE =
  '<EsignResp ver="2.1" status="1" ts="2026-11-25T21:00:00" txn="txn-1" resCode="r1" errCode="NA" errMsg="NA"><UserX509Certificate>QUJD</UserX509Certificate><Signatures><DocSignature id="1" sigHashAlgorithm="SHA256" error="">AAAABBBB</DocSignature></Signatures></EsignResp>';

function refuses(fn: () => unknown, reason: RegExp): void {
  assert.throws(fn, (e: unknown) => isMoharError(e, 'esign_xml_invalid') && reason.test(e.message), String(reason));
}

const verify = (xml: string, cred: SoftwareCredential = esp): ReturnType<typeof verifyEnveloped> =>
  verifyEnveloped(xml, { certificatePem: cred.certPem, rootName: 'EsignResp' });

describe('Aadhaar eSign XML: enveloped signatures', async () => {
  const signed = await signEnveloped(RESPONSE, signerOf(esp));

  test('round trip: what was signed comes back, from the verified bytes', () => {
    assert.match(signed, /<Reference URI="">/);
    assert.match(signed, /xml-exc-c14n#/);
    const el = verify(signed);
    assert.equal(el.getAttribute('txn'), 'txn-1');
    assert.equal(
      el.getElementsByTagNameNS(ALGORITHMS.enveloped.split('#')[0] + '#', 'Signature').length,
      0,
      'the returned element is the signed content, without its Signature',
    );
    assert.equal(parseEsignResponse(el).signatures[0]!.value, 'AAAABBBB');
  });

  test('a document signed by another key is refused (the pinned certificate decides, not KeyInfo)', async () => {
    refuses(() => verify(signed, attacker), /does not verify/);
    const forged = await signEnveloped(RESPONSE.replace('txn-1', 'txn-2'), signerOf(attacker));
    assert.match(forged, /<X509Certificate>/, 'the forgery carries its own certificate in KeyInfo');
    refuses(() => verify(forged), /does not verify/);
  });

  test('any change to the signed content is refused', () => {
    refuses(() => verify(signed.replace('status="1"', 'status="0"')), /does not verify/);
    refuses(() => verify(signed.replace('AAAABBBB', 'AAAACCCC')), /does not verify/);
  });

  test('wrapping: a second Signature is refused', () => {
    const sig = /<Signature [\s\S]*<\/Signature>/.exec(signed)![0];
    refuses(() => verify(signed.replace('</EsignResp>', `${sig}</EsignResp>`)), /2 XML signatures/);
    refuses(() => verify(signed.replace('<Signatures>', `<Signatures><Extra>${sig}</Extra>`)), /2 XML signatures/);
  });

  test('wrapping: an unsigned EsignResp around a signed one is refused', () => {
    const evil = `<EsignResp ver="2.1" status="1" txn="txn-evil" errCode="NA">${signed}</EsignResp>`;
    refuses(() => verify(evil), /not a child of the document element/);
  });

  test('wrapping: a Reference to the Id of a wrapped copy is refused, though the key is right', async () => {
    // A genuine signature by the ESP key over an element picked by Id (as some SAML libraries allow).
    const wrapped = '<EsignResp status="1" txn="txn-evil"><Copy Id="c1" status="0" txn="txn-1"/></EsignResp>';
    const sx = new SignedXml({
      privateKey: esp.keyPem,
      publicCert: esp.certPem,
      signatureAlgorithm: ALGORITHMS.rsaSha256,
      canonicalizationAlgorithm: ALGORITHMS.excC14n,
    });
    sx.addReference({
      xpath: "//*[local-name(.)='Copy']",
      transforms: [ALGORITHMS.excC14n],
      digestAlgorithm: ALGORITHMS.sha256,
    });
    sx.computeSignature(wrapped);
    const xml = sx.getSignedXml();
    assert.match(xml, /URI="#c1"/);
    refuses(() => verify(xml), /URI=""/);
    // Two references, one of them the whole document: still refused.
    const two = signed.replace(
      '<Reference URI="">',
      '<Reference URI="#c1"><DigestMethod Algorithm="x"/><DigestValue>AA==</DigestValue></Reference><Reference URI="">',
    );
    refuses(() => verify(two), /2 References/);
  });

  test('comment trick: a comment inside a signed value neither breaks nor shortens it', () => {
    const tricked = signed.replace('AAAABBBB', 'AAAA<!-- cut -->BBBB');
    const el = verify(tricked);
    assert.equal(parseEsignResponse(el).signatures[0]!.value, 'AAAABBBB');
  });

  test('whitespace trick: whitespace added to the signed content is refused', () => {
    refuses(() => verify(signed.replace('<Signatures>', '<Signatures>\n  ')), /does not verify/);
    refuses(() => verify(signed.replace('txn="txn-1"', 'txn="txn-1 "')), /does not verify/);
  });

  test('DOCTYPE, entity and processing-instruction payloads are refused before parsing', () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>${signed.replace('txn-1', '&x;')}`;
    refuses(() => verify(xxe), /DOCTYPE or entity/);
    const laughs = `<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><EsignResp txn="&lol2;"/>`;
    refuses(() => verify(laughs), /DOCTYPE or entity/);
    refuses(() => parseXml('<!doctype EsignResp><EsignResp/>'), /DOCTYPE/);
    refuses(() => verify(`<?xml version="1.0"?><?xml-stylesheet href="x"?>${signed}`), /processing instructions/);
    refuses(() => verify(`<EsignResp txn="&undefined;"/>`), /not well-formed/);
  });

  test('oversized input is refused', () => {
    refuses(
      () => verifyEnveloped(signed, { certificatePem: esp.certPem, rootName: 'EsignResp', maxBytes: 1000 }),
      /larger than 1000 bytes/,
    );
    refuses(() => parseXml(`<a>${'x'.repeat(1024 * 1024)}</a>`), /larger than/);
  });

  test('the wrong document element, no signature, malformed XML are refused', () => {
    refuses(() => verifyEnveloped(signed, { certificatePem: esp.certPem, rootName: 'Esign' }), /expected Esign/);
    refuses(() => verify(RESPONSE), /no XML signature/);
    refuses(() => verify(signed.slice(0, -3)), /not well-formed/);
  });

  test('the forms ESPs use are accepted: inclusive C14N, an enveloped-only transform list, a ds: prefix, a declaration', () => {
    const sx = new SignedXml({
      privateKey: esp.keyPem,
      publicCert: esp.certPem,
      signatureAlgorithm: ALGORITHMS.rsaSha256,
      canonicalizationAlgorithm: ALGORITHMS.c14n,
    });
    sx.addReference({
      xpath: '/*',
      transforms: [ALGORITHMS.enveloped],
      digestAlgorithm: ALGORITHMS.sha256,
      isEmptyUri: true,
    });
    sx.computeSignature(RESPONSE, { prefix: 'ds' });
    const xml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${sx.getSignedXml()}`;
    assert.match(xml, /<ds:Signature xmlns:ds=/);
    assert.equal(parseEsignResponse(verify(xml)).txn, 'txn-1');
  });

  test('weaker algorithms are refused', () => {
    refuses(
      () => verify(signed.replace(ALGORITHMS.rsaSha256, 'http://www.w3.org/2000/09/xmldsig#rsa-sha1')),
      /RSA-SHA256/,
    );
    refuses(() => verify(signed.replace(ALGORITHMS.sha256, 'http://www.w3.org/2000/09/xmldsig#sha1')), /SHA-256/);
  });
});
