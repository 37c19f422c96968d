/**
 * Writes a PKCS#12 file (key + certificate) the way OpenSSL 3 does by default: the key in a
 * PKCS8ShroudedKeyBag under PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC), the certificate in plain, and the
 * whole file MACed with HMAC-SHA256. `mohar esp-simulator` uses it for the ASP key it generates, so it needs
 * no openssl binary (the desktop builds ship none).
 */
import { webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

type EngineCrypto = ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'];
const engine = new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: webcrypto as unknown as EngineCrypto });

const BAG_SHROUDED_KEY = '1.2.840.113549.1.12.10.1.2';
const BAG_CERT = '1.2.840.113549.1.12.10.1.3';
const FRIENDLY_NAME = '1.2.840.113549.1.9.20';
const ITERATIONS = 2048;

function bytes(data: Uint8Array): ArrayBuffer {
  return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
}

function friendlyName(name: string): pkijs.Attribute[] {
  return [new pkijs.Attribute({ type: FRIENDLY_NAME, values: [new asn1js.BmpString({ value: name })] })];
}

export async function writePkcs12(options: {
  pkcs8: Uint8Array;
  certificate: Uint8Array;
  passphrase: string;
  name: string;
}): Promise<Uint8Array> {
  const password = bytes(new TextEncoder().encode(options.passphrase));
  const keyBag = new pkijs.PKCS8ShroudedKeyBag({ parsedValue: pkijs.PrivateKeyInfo.fromBER(bytes(options.pkcs8)) });
  await keyBag.makeInternalValues(
    {
      password,
      contentEncryptionAlgorithm: { name: 'AES-CBC', length: 256 } as pkijs.ContentEncryptionAlgorithm,
      hmacHashAlgorithm: 'SHA-256',
      iterationCount: ITERATIONS,
    },
    engine,
  );
  const certBag = new pkijs.CertBag({ parsedValue: pkijs.Certificate.fromBER(bytes(options.certificate)) });
  const pfx = new pkijs.PFX({
    parsedValue: {
      integrityMode: 0,
      authenticatedSafe: new pkijs.AuthenticatedSafe({
        parsedValue: {
          safeContents: [
            {
              privacyMode: 0,
              value: new pkijs.SafeContents({
                safeBags: [
                  new pkijs.SafeBag({
                    bagId: BAG_SHROUDED_KEY,
                    bagValue: keyBag,
                    bagAttributes: friendlyName(options.name),
                  }),
                  new pkijs.SafeBag({ bagId: BAG_CERT, bagValue: certBag, bagAttributes: friendlyName(options.name) }),
                ],
              }),
            },
          ],
        },
      }),
    },
  });
  await pfx.parsedValue!.authenticatedSafe!.makeInternalValues({ safeContents: [{}] }, engine);
  await pfx.makeInternalValues(
    {
      password,
      iterations: ITERATIONS,
      pbkdf2HashAlgorithm: { name: 'SHA-256' },
      hmacHashAlgorithm: 'SHA-256',
    } as pkijs.MakeInternalValuesParams,
    engine,
  );
  return new Uint8Array(pfx.toSchema().toBER(false));
}
