/**
 * `mohar sign-batch` end to end: a real listening test server (SQLite) with three DSC envelopes, a file of their
 * signing links, a SoftHSM2 token and the PIN once on stdin. Every envelope completes and pdfsig accepts each
 * result; a wrong PIN signs nothing and exits 1.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { mohar } from '../support/cli.js';
import { useDscTrust } from '../support/dsc-trust.js';
import { makeDraft, sendDraft, type Draft } from '../support/envelopes.js';
import { API, useTestServer } from '../support/server.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { pdfsigVerdicts } from '../support/validators.js';

const root = new URL('../../', import.meta.url).pathname;
const trust = useDscTrust();
let hsm: SoftHsm;
let dir: string;

before(async () => {
  const pki = await trust.ready();
  hsm = createSoftHsm({ pki: pki.pki, keys: pki.tokenKeys() });
  pki.registerToken(hsm);
  dir = mkdtempSync(join(tmpdir(), 'mohar-sign-batch-'));
});
after(() => {
  hsm?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Asynchronous: the server answers from this process.
const cli = (args: string[], input: string) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, mohar(...args), {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SOFTHSM2_CONF: hsm.confPath },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });

describe('mohar sign-batch', () => {
  const t = useTestServer('sqlite', trust.env);
  let origin: string;

  before(async () => {
    origin = await t.server.app.listen({ port: 0, host: '127.0.0.1' });
  });

  async function dscLinks(titles: string[]): Promise<{ drafts: Draft[]; file: string }> {
    const drafts: Draft[] = [];
    const links: string[] = [];
    for (const title of titles) {
      const draft = await makeDraft(t.server, t.account.key, {
        body: { title },
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com', signature_method: 'dsc' }],
      });
      await sendDraft(t.server, t.account.key, draft);
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      const link = new URL(session.json().signing_url as string);
      drafts.push(draft);
      links.push(`${origin}${link.pathname}`);
    }
    const file = join(dir, `links-${titles.join('-').replace(/\W/g, '')}.txt`);
    writeFileSync(file, `# waiting for Asha\n${links.join('\n')}\n\n`);
    return { drafts, file };
  }

  test('three envelopes, the PIN once on stdin: all completed, pdfsig accepts each', async () => {
    const { drafts, file } = await dscLinks(['GST return', 'Invoice 17', 'Invoice 18']);
    const run = await cli(['sign-batch', file, '--module', hsm.modulePath, '--cert-id', '01'], `${hsm.pin}\n`);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /3 document\(s\)/);
    assert.equal(run.stdout.match(/SHA-256 [0-9a-f]{64}/g)?.length, 3);
    assert.match(run.stdout, /3 signed, 0 failed, 0 skipped/);
    for (const draft of drafts) {
      const final = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: t.account.key,
        })
      ).rawPayload;
      const verdicts = pdfsigVerdicts(final);
      assert.ok(verdicts.valid.length >= 2 && verdicts.valid.every(Boolean), verdicts.output);
    }
  });

  test('a wrong PIN signs nothing and exits 1', async () => {
    const { drafts, file } = await dscLinks(['Bill X', 'Bill Y']);
    const run = await cli(['sign-batch', file, '--module', hsm.modulePath, '--cert-id', '01'], 'not-the-pin\n');
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /The PIN is incorrect\. Nothing was signed/);
    assert.match(run.stdout, /0 signed, 0 failed, 2 skipped/);
    for (const draft of drafts) {
      const envelope = await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key });
      assert.equal(envelope.json().status, 'sent');
    }
  });
});
