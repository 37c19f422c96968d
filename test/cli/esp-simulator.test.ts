import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { softwareSigner } from '../../pdf/cms/software-signer.js';
import { formatEsignTimestamp, signEsignStatusRequest, verifyEsignResponse } from '../../server/aadhaar/messages.js';
import { mohar } from '../support/cli.js';

const root = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mohar-esp-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `mohar esp-simulator`, waits for the settings it prints. */
async function start(): Promise<{ child: ChildProcess; settings: Record<string, string>; output: string }> {
  const child = spawn(
    process.execPath,
    mohar('esp-simulator', '--port', '0', '--data-dir', dir, '--asp-id', 'CLI-ASP'),
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let errors = '';
  child.stderr!.on('data', (d: Buffer) => (errors += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('MOHAR_ESIGN_ESP_CERT=')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${errors}`)));
  });
  const settings = Object.fromEntries(
    [...output.matchAll(/^\s+(MOHAR_ESIGN_[A-Z_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!.trim()]),
  );
  return { child, settings, output };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe('mohar esp-simulator', () => {
  test('prints its URLs and settings; the generated ASP PKCS#12 signs status queries it accepts; keys survive a restart', async () => {
    const first = await start();
    let espCert: string;
    try {
      assert.match(first.output, /test CA root \(trust\)\s+\S+simulated-cca-root\.pem/);
      const s = first.settings;
      assert.match(s.MOHAR_ESIGN_ESP_URL!, /^http:\/\/127\.0\.0\.1:\d+\/esign\/2\.1\/signdoc$/);
      assert.equal(s.MOHAR_ESIGN_ASP_ID, 'CLI-ASP');
      espCert = readFileSync(s.MOHAR_ESIGN_ESP_CERT!, 'utf8');
      const asp = await softwareSigner({
        pkcs12: readFileSync(s.MOHAR_ESIGN_ASP_KEY!),
        passphrase: s.MOHAR_ESIGN_ASP_KEY_PASSPHRASE!,
      });
      const query = await signEsignStatusRequest(
        { ver: '2.1', ts: formatEsignTimestamp(new Date()), txn: 'nothing-yet', aspId: 'CLI-ASP' },
        asp,
      );
      const res = await fetch(s.MOHAR_ESIGN_STATUS_URL!, {
        method: 'POST',
        body: query,
        headers: { 'content-type': 'application/xml' },
      });
      const answer = verifyEsignResponse(await res.text(), espCert);
      assert.equal(answer.errCode, 'ESP-907', 'a verified query about an unknown txn');
    } finally {
      await stop(first.child);
    }
    const second = await start();
    try {
      assert.equal(
        readFileSync(second.settings.MOHAR_ESIGN_ESP_CERT!, 'utf8'),
        espCert,
        'the same ESP key after a restart',
      );
    } finally {
      await stop(second.child);
    }
  });
});
