import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, parseConfig } from '../../server/config.js';

const S3 = {
  MOHAR_BLOB_STORE: 's3',
  MOHAR_S3_ENDPOINT: 'https://minio.example.com:9000/',
  MOHAR_S3_BUCKET: 'mohar-pdfs',
  MOHAR_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  MOHAR_S3_SECRET_ACCESS_KEY: 'very secret value',
};

function refused(env: Record<string, string>, setting: string, message: RegExp): void {
  assert.throws(
    () => parseConfig(env),
    (error: unknown) => error instanceof ConfigError && error.setting === setting && message.test(error.message),
  );
}

describe('parseConfig: blob store', () => {
  test('unset: files with SQLite, the blobs table with PostgreSQL, as before; no bucket', () => {
    assert.equal(parseConfig({}).blobStore, 'file');
    assert.equal(parseConfig({ MOHAR_DATABASE_URL: 'postgres://db/mohar' }).blobStore, 'database');
    assert.equal(parseConfig({}).s3, undefined);
  });

  test('MOHAR_BLOB_STORE chooses any store on either database', () => {
    assert.equal(parseConfig({ MOHAR_BLOB_STORE: 'database' }).blobStore, 'database');
    assert.equal(parseConfig({ MOHAR_BLOB_STORE: 'file', MOHAR_DATABASE_URL: 'postgres://db/m' }).blobStore, 'file');
    refused({ MOHAR_BLOB_STORE: 'tape' }, 'MOHAR_BLOB_STORE', /one of file, database, s3/);
  });

  test('s3: every setting read; region us-east-1 and virtual-host style unless told', () => {
    const config = parseConfig(S3);
    assert.equal(config.blobStore, 's3');
    assert.deepEqual(config.s3, {
      endpoint: 'https://minio.example.com:9000',
      region: 'us-east-1',
      bucket: 'mohar-pdfs',
      accessKeyId: 'AKIAEXAMPLE',
      secretAccessKey: 'very secret value',
      forcePathStyle: false,
    });
    const r2 = parseConfig({ ...S3, MOHAR_S3_REGION: 'auto', MOHAR_S3_FORCE_PATH_STYLE: '1' });
    assert.equal(r2.s3?.region, 'auto');
    assert.equal(r2.s3?.forcePathStyle, true);
    const aws = parseConfig({ ...S3, MOHAR_S3_ENDPOINT: '' });
    assert.equal(aws.s3?.endpoint, undefined, 'no endpoint: AWS');
  });

  test('s3 settings are read for `blobs migrate` while the store is still another', () => {
    const config = parseConfig({ ...S3, MOHAR_BLOB_STORE: '' });
    assert.equal(config.blobStore, 'file');
    assert.equal(config.s3?.bucket, 'mohar-pdfs');
  });

  test('bad or missing S3 settings stop start-up by name, and the secret is never echoed', () => {
    refused({ MOHAR_BLOB_STORE: 's3' }, 'MOHAR_S3_BUCKET', /required/);
    refused({ ...S3, MOHAR_S3_ACCESS_KEY_ID: '' }, 'MOHAR_S3_ACCESS_KEY_ID', /required/);
    refused({ ...S3, MOHAR_S3_SECRET_ACCESS_KEY: ' ' }, 'MOHAR_S3_SECRET_ACCESS_KEY', /required/);
    refused({ ...S3, MOHAR_S3_BUCKET: 'My_Bucket' }, 'MOHAR_S3_BUCKET', /bucket name/);
    refused({ ...S3, MOHAR_S3_ENDPOINT: 'ftp://x' }, 'MOHAR_S3_ENDPOINT', /https:\/\/ or http:\/\//);
    refused({ ...S3, MOHAR_S3_ENDPOINT: 'not a url' }, 'MOHAR_S3_ENDPOINT', /must be a URL/);
    refused({ ...S3, MOHAR_S3_ENDPOINT: 'https://k:s@minio' }, 'MOHAR_S3_ENDPOINT', /user name or password/);
    refused({ ...S3, MOHAR_S3_FORCE_PATH_STYLE: 'maybe' }, 'MOHAR_S3_FORCE_PATH_STYLE', /1 or 0/);
    refused({ MOHAR_S3_SECRET_ACCESS_KEY: 'very secret value' }, 'MOHAR_S3_BUCKET', /required/);
    try {
      parseConfig({ ...S3, MOHAR_S3_BUCKET: 'BAD' });
    } catch (error) {
      assert.ok(!String(error).includes('very secret value'));
    }
  });
});
