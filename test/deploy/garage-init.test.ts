/**
 * deploy/garage/init.mjs, compose.yaml's one-shot Garage set-up, against a stand-in for Garage's admin API v2
 * (the endpoints and bodies of Garage's published OpenAPI document, doc/api/garage-admin-v2.json). A real
 * Garage is not run here: what this proves is the script's sequence and its idempotence, not Garage.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { setUpGarage } from '../../deploy/garage/init.mjs';

const TOKEN = 'admin-token-for-the-test';
const KEY_ID = 'GK0123456789abcdef01234567';
const SECRET = 'ab'.repeat(32);

/** Garage's state as the admin API shows it, and the calls that changed it. */
const garage = {
  nodeId: 'f'.repeat(64),
  role: null as null | { zone: string; capacity: number; tags: string[] },
  staged: null as null | { zone: string; capacity: number; tags: string[] },
  layoutVersion: 0,
  keys: [] as { id: string; secret: string; name: string }[],
  buckets: [] as { id: string; globalAliases: string[]; grants: Record<string, object> }[],
  nodes: 1,
  changes: [] as string[],
};

async function body(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

let server: Server;
let adminUrl: string;
before(async () => {
  server = createServer((request, response) => {
    void (async () => {
      const reply = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      if (request.headers.authorization !== `Bearer ${TOKEN}`) return reply(403, { code: 'Forbidden' });
      const path = `${request.method} ${request.url}`;
      const input = await body(request);
      switch (path) {
        case 'GET /v2/GetClusterStatus':
          return reply(200, {
            layoutVersion: garage.layoutVersion,
            nodes: Array.from({ length: garage.nodes }, (_, i) => ({
              id: i === 0 ? garage.nodeId : `${i}`.repeat(64),
              isUp: true,
              draining: false,
              role: garage.role,
              dataPartition: { available: 5e10, total: 1e11 },
            })),
          });
        case 'GET /v2/GetClusterLayout':
          return reply(200, { version: garage.layoutVersion, roles: [], stagedRoleChanges: [] });
        case 'POST /v2/UpdateClusterLayout': {
          const [change] = input.roles as { id: string; zone: string; capacity: number; tags: string[] }[];
          assert.equal(change!.id, garage.nodeId);
          garage.staged = { zone: change!.zone, capacity: change!.capacity, tags: change!.tags };
          garage.changes.push(`layout staged: ${change!.zone} ${change!.capacity}`);
          return reply(200, {});
        }
        case 'POST /v2/ApplyClusterLayout':
          // Garage's safety rule: the version applied must be the next one.
          if (input.version !== garage.layoutVersion + 1 || !garage.staged) return reply(400, { code: 'BadRequest' });
          garage.layoutVersion += 1;
          garage.role = garage.staged;
          garage.changes.push(`layout applied: ${garage.layoutVersion}`);
          return reply(200, { message: [] });
        case 'GET /v2/ListKeys':
          return reply(
            200,
            garage.keys.map((k) => ({ id: k.id, name: k.name, expired: false })),
          );
        case 'POST /v2/ImportKey':
          garage.keys.push({
            id: String(input.accessKeyId),
            secret: String(input.secretAccessKey),
            name: String(input.name),
          });
          garage.changes.push(`key imported: ${String(input.accessKeyId)}`);
          return reply(200, { accessKeyId: input.accessKeyId });
        case 'GET /v2/ListBuckets':
          return reply(
            200,
            garage.buckets.map((b) => ({ id: b.id, globalAliases: b.globalAliases, localAliases: [], created: '' })),
          );
        case 'POST /v2/CreateBucket': {
          const bucket = {
            id: `b${garage.buckets.length}`.padEnd(64, '0'),
            globalAliases: [String(input.globalAlias)],
            grants: {},
          };
          garage.buckets.push(bucket);
          garage.changes.push(`bucket created: ${String(input.globalAlias)}`);
          return reply(200, { id: bucket.id, globalAliases: bucket.globalAliases });
        }
        case 'POST /v2/AllowBucketKey': {
          const bucket = garage.buckets.find((b) => b.id === input.bucketId);
          if (!bucket || !garage.keys.some((k) => k.id === input.accessKeyId)) {
            return reply(404, { code: 'NoSuchBucket' });
          }
          bucket.grants[String(input.accessKeyId)] = input.permissions as object;
          return reply(200, { id: bucket.id });
        }
        default:
          return reply(400, { code: 'InvalidRequest', message: `unknown ${path}` });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  adminUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

const options = () => ({ adminUrl, adminToken: TOKEN, bucket: 'mohar', accessKeyId: KEY_ID, secretAccessKey: SECRET });

test('a fresh Garage: the node gets its role, the key is imported, the bucket created and granted to the key', async () => {
  const lines: string[] = [];
  await setUpGarage({ ...options(), log: (line: string) => lines.push(line) });
  assert.deepEqual(garage.changes, [
    'layout staged: dc1 100000000000',
    'layout applied: 1',
    `key imported: ${KEY_ID}`,
    'bucket created: mohar',
  ]);
  assert.deepEqual(
    garage.keys,
    [{ id: KEY_ID, secret: SECRET, name: 'mohar' }],
    'the key from .env, not a generated one',
  );
  assert.deepEqual(garage.buckets[0]!.grants, { [KEY_ID]: { read: true, write: true, owner: false } });
  assert.equal(lines.length, 4);
});

test('run again (every `docker compose up`): nothing is changed', async () => {
  garage.changes = [];
  await setUpGarage(options());
  assert.deepEqual(garage.changes, []);
  assert.equal(garage.buckets.length, 1);
  assert.equal(garage.keys.length, 1);
});

test('a wrong admin token or a cluster of several nodes stops it with a message', async () => {
  await assert.rejects(setUpGarage({ ...options(), adminToken: 'wrong' }), /GET \/v2\/GetClusterStatus: 403/);
  garage.nodes = 2;
  await assert.rejects(setUpGarage(options()), /found 2: lay out a cluster by hand/);
  garage.nodes = 1;
});
