/**
 * `mohar verify FILE` on representative shadow-attack uploads (test/support/shadow): it exits
 * non-zero and names what is wrong; on a benign signed upload it exits 0. An attack inside the signer's
 * own revision shows only when something earlier can object: the certification at send.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  ATTACK_CASES,
  BENIGN_CASES,
  shadowKeys,
  shadowPrepared,
  shadowPreparedCertified,
  type CaseContext,
  type ShadowKeys,
} from '../support/shadow/corpus.js';
import { mohar } from '../support/cli.js';

const root = new URL('../../', import.meta.url).pathname;

function verify(file: string) {
  return spawnSync(process.execPath, mohar('verify', file), {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** Case name prefix -> what the text report must say. */
const FLAGGED: readonly [string, RegExp][] = [
  ['ISA: a valid signature, then a revision', /OTHER CHANGES[\s\S]*page 1 content stream/],
  ['SWA: the /ByteRange gap also hides', /gap of the \/ByteRange is not exactly the \/Contents/],
  ['USF: /ByteRange [0 0 0 0]', /\/ByteRange/],
];
const INSIDE_SIGNING_REVISION = "hide-and-replace: page 1's content stream redefined (the issue's attack)";

describe('mohar verify on the shadow-attack corpus', () => {
  let keys: ShadowKeys;
  let ctx: CaseContext;
  let dir: string;
  const file = async (name: string, build: (c: CaseContext) => Promise<Buffer>): Promise<string> => {
    const path = join(dir, `${name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 60)}.pdf`);
    writeFileSync(path, await build(ctx));
    return path;
  };

  before(async () => {
    keys = await shadowKeys();
    const prepared = shadowPrepared();
    ctx = { ...prepared, prepared: prepared.bytes, signer: keys.signer, certificates: keys.certificates };
    dir = mkdtempSync(join(tmpdir(), 'mohar-shadow-cli-'));
  });
  after(() => {
    keys?.pki.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const [prefix, says] of FLAGGED) {
    test(`${prefix}…: exits 1 and says why`, async () => {
      const c = ATTACK_CASES.find((x) => x.name.startsWith(prefix))!;
      const run = verify(await file(c.name, c.build));
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.match(run.stdout, says);
      assert.match(run.stdout, /NOT all signatures are valid/);
    });
  }

  test(`${INSIDE_SIGNING_REVISION}, over a document certified at send: exits 1 and names the rewritten stream`, async () => {
    const c = ATTACK_CASES.find((x) => x.name === INSIDE_SIGNING_REVISION)!;
    const certified = { ...ctx, prepared: (await shadowPreparedCertified(keys.seal)).bytes };
    const run = verify(await file(c.name, () => c.build(certified)));
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /OTHER CHANGES[\s\S]*page 1 content stream/);
  });

  test('a benign signed upload: exits 0', async () => {
    const run = verify(await file('benign', BENIGN_CASES[0]!.build));
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /All signatures are valid/);
  });
});
