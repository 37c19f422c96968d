// One-shot set-up of the single Garage node of compose.yaml, through Garage's admin API v2 (Node's fetch, no
// dependency: it runs in the plain node:24 image). Idempotent: each step looks first and changes only what is
// missing, so it runs on every `docker compose up`. Tested against a stand-in admin API in
// test/deploy/garage-init.test.ts (a real Garage is not run there).
//
//   1. the node gets a role (zone dc1) in the cluster layout, and the layout is applied;
//   2. Mohar's key (MOHAR_S3_ACCESS_KEY_ID / MOHAR_S3_SECRET_ACCESS_KEY, chosen by the operator in .env) is
//      imported, so the secret never has to be read back out of Garage;
//   3. the bucket (MOHAR_S3_BUCKET) is created under that global name;
//   4. the key may read and write the bucket (not own it: Mohar never changes bucket settings).
import { pathToFileURL } from 'node:url';

/** Capacity given to the node when its disk size is unknown (bytes); with one node it only has to be > 0. */
const DEFAULT_CAPACITY = 100 * 1024 ** 3;

/**
 * @param {{ adminUrl: string, adminToken: string, bucket: string, accessKeyId: string, secretAccessKey: string,
 *   log?: (line: string) => void }} options
 */
export async function setUpGarage({ adminUrl, adminToken, bucket, accessKeyId, secretAccessKey, log = () => {} }) {
  const call = async (method, path, body) => {
    const response = await fetch(new URL(path, adminUrl), {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`Garage ${method} ${path}: ${response.status} ${text}`);
    return text === '' ? null : JSON.parse(text);
  };

  const status = await call('GET', '/v2/GetClusterStatus');
  if (status.nodes.length !== 1) {
    throw new Error(
      `expected the one Garage node of compose.yaml, found ${status.nodes.length}: lay out a cluster by hand`,
    );
  }
  const [node] = status.nodes;
  if (node.role) {
    log(`layout: node ${node.id.slice(0, 16)} already has a role`);
  } else {
    const capacity = node.dataPartition?.total ?? DEFAULT_CAPACITY;
    await call('POST', '/v2/UpdateClusterLayout', { roles: [{ id: node.id, zone: 'dc1', capacity, tags: [] }] });
    const layout = await call('GET', '/v2/GetClusterLayout');
    await call('POST', '/v2/ApplyClusterLayout', { version: layout.version + 1 });
    log(`layout: node ${node.id.slice(0, 16)} given zone dc1, layout version ${layout.version + 1} applied`);
  }

  const keys = await call('GET', '/v2/ListKeys');
  if (keys.some((key) => key.id === accessKeyId)) {
    log(`key ${accessKeyId}: present`);
  } else {
    await call('POST', '/v2/ImportKey', { accessKeyId, secretAccessKey, name: 'mohar' });
    log(`key ${accessKeyId}: imported`);
  }

  const buckets = await call('GET', '/v2/ListBuckets');
  let bucketId = buckets.find((b) => b.globalAliases.includes(bucket))?.id;
  if (bucketId) {
    log(`bucket ${bucket}: present`);
  } else {
    bucketId = (await call('POST', '/v2/CreateBucket', { globalAlias: bucket })).id;
    log(`bucket ${bucket}: created`);
  }

  // Granting a permission the key already has changes nothing, so it is simply asked every time.
  await call('POST', '/v2/AllowBucketKey', {
    bucketId,
    accessKeyId,
    permissions: { read: true, write: true, owner: false },
  });
  log(`bucket ${bucket}: ${accessKeyId} may read and write`);
}

function required(name) {
  const value = process.env[name]?.trim();
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await setUpGarage({
      adminUrl: process.env.GARAGE_ADMIN_URL?.trim() || 'http://garage:3903',
      adminToken: required('GARAGE_ADMIN_TOKEN'),
      bucket: required('MOHAR_S3_BUCKET'),
      accessKeyId: required('MOHAR_S3_ACCESS_KEY_ID'),
      secretAccessKey: required('MOHAR_S3_SECRET_ACCESS_KEY'),
      log: (line) => process.stdout.write(`garage-init: ${line}\n`),
    });
  } catch (error) {
    process.stderr.write(`garage-init: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
