/**
 * A complete webhook receiver for Mohar, in plain Node (no framework).
 *
 *   MOHAR_WEBHOOK_SECRETS=whsec_… PORT=4000 node --import tsx examples/webhook-receiver.ts
 *
 * MOHAR_WEBHOOK_SECRETS holds your webhook secret; during a rotation put the new and the old one,
 * comma-separated. Outside this repository import the helper from the package instead:
 *
 *   import { verifyWebhook } from 'mohar/webhooks';
 *
 * The receiver rules: verify the signature over the raw body (before any JSON parsing), refuse stale
 * timestamps, refuse (but acknowledge) event ids already processed, and answer 2xx quickly: the work
 * happens after the answer.
 */
import { createServer } from 'node:http';
import { verifyWebhook, type WebhookEvent } from '../server/webhooks/verify.js';

const MAX_BODY_BYTES = 1024 * 1024;

// An example program reads its own settings from the environment.
// eslint-disable-next-line no-restricted-syntax
const settings = process.env;
const secrets = (settings.MOHAR_WEBHOOK_SECRETS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '');
const port = Number(settings.PORT ?? 4000);
if (secrets.length === 0) {
  console.error('set MOHAR_WEBHOOK_SECRETS to your webhook secret (POST /webhook/save/ returned it)');
  process.exit(2);
}

// Event ids already processed. Mohar retries for about 3 days, so a real receiver keeps them that long,
// in its database (a unique column) rather than in memory.
const seen = new Set<string>();

async function handle(event: WebhookEvent): Promise<void> {
  switch (event.type) {
    case 'envelope.completed': {
      const documents = (event.data.documents ?? []) as { document_id: string; sha256: string; download_url: string }[];
      for (const d of documents) {
        console.log(
          `envelope ${(event.data.envelope as { id: string }).id} completed: download ${d.download_url} (SHA-256 ${d.sha256})`,
        );
      }
      break;
    }
    case 'webhook.test':
      console.log('test event received: the webhook works');
      break;
    default:
      console.log(
        `${event.type} #${event.sequence} for envelope ${(event.data.envelope as { id?: string } | undefined)?.id ?? '-'}`,
      );
  }
}

const server = createServer((request, response) => {
  if (request.method !== 'POST') {
    response.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) request.destroy();
    else chunks.push(chunk);
  });
  request.on('end', async () => {
    const result = await verifyWebhook({ rawBody: Buffer.concat(chunks), headers: request.headers, secrets, seen });
    if (!result.ok) {
      // Processed before: acknowledge, so Mohar stops retrying, and do nothing.
      if (result.reason === 'duplicate_event') {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('duplicate');
        return;
      }
      console.warn(`refused a delivery: ${result.reason}: ${result.message}`);
      response
        .writeHead(result.reason === 'invalid_body' ? 400 : 401, { 'content-type': 'text/plain' })
        .end(result.reason);
      return;
    }
    response.writeHead(204).end();
    handle(result.event).catch((error: unknown) => {
      // Answered already: keep the event (a queue, a table) and retry it yourself.
      console.error(`processing ${result.eventId} failed`, error);
    });
  });
});

server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  console.log(
    `webhook receiver listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}/`,
  );
});
