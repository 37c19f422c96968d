/**
 * Every revision Mohar appends is judged by the allow-list before it is stored, and a refusal fails the act
 * (issue 11 §2). So the allow-list must recognise Mohar's own revisions on documents from other producers,
 * not only on our fixtures: the real PDFs under /usr/share, as they are and rewritten by qpdf (object streams,
 * linearized), pdftocairo and ghostscript. Each goes through send (form fields, certification P=2), filling
 * every kind of field, and a signature.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { softwareSigner } from '../../../pdf/cms/index.js';
import { fillForm } from '../../../pdf/prepare/fill-form.js';
import { prepareForm, type FormFieldLayout } from '../../../pdf/prepare/prepare-form.js';
import { signPades } from '../../../pdf/sign/pades.js';
import type { SignatureProvider } from '../../../pdf/ports.js';
import { judgeAppendedRevision, type RevisionJudgement } from '../../../pdf/verify/index.js';
import { hasTool, linearize, makeHybridPdf, withObjectStreams } from '../../support/pdf-fixtures.js';
import { createTestPki, type TestPki } from '../../support/served-pki.js';

const LAYOUT: FormFieldLayout[] = [
  { type: 1, page: 1, rect: { x: 50, y: 300, width: 200, height: 60 }, recipientId: 'r1', id: 'sig', name: 'sig' },
  { type: 8, page: 1, rect: { x: 50, y: 200, width: 200, height: 20 }, recipientId: 'r1', id: 'txt', name: 'txt' },
  {
    type: 13,
    page: 1,
    rect: { x: 50, y: 100, width: 150, height: 22 },
    recipientId: 'r1',
    id: 'rad',
    name: 'rad',
    options: ['Yes', 'No'],
  },
  { type: 9, page: 1, rect: { x: 50, y: 150, width: 18, height: 18 }, recipientId: 'r1', id: 'chk', name: 'chk' },
  {
    type: 12,
    page: 1,
    rect: { x: 250, y: 150, width: 120, height: 22 },
    recipientId: 'r1',
    id: 'drop',
    name: 'drop',
    options: ['A', 'B'],
  },
];

/** The real PDFs on this machine and their rewrites by other producers. */
function producerVariants(): [string, () => Buffer][] {
  const found = spawnSync('find', ['/usr/share', '-name', '*.pdf', '-type', 'f'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .slice(0, 4);
  const dir = mkdtempSync(join(tmpdir(), 'mohar-own-'));
  const viaTool = (tool: string, args: (out: string) => string[]) => (): Buffer => {
    const out = join(dir, `${tool}.pdf`);
    const run = spawnSync(tool, args(out));
    if (run.status !== 0) throw new Error(`${tool} failed: ${run.stderr}`);
    return readFileSync(out);
  };
  const variants: [string, () => Buffer][] = [['a hybrid-reference file', () => makeHybridPdf()]];
  for (const file of found) {
    variants.push([file, () => readFileSync(file)]);
    if (hasTool('qpdf')) {
      variants.push(
        [`${file} with object streams (qpdf)`, () => withObjectStreams(readFileSync(file))],
        [`${file} linearized (qpdf)`, () => linearize(readFileSync(file))],
      );
    }
    if (hasTool('pdftocairo')) {
      variants.push([`${file} by pdftocairo`, viaTool('pdftocairo', (out) => ['-pdf', file, out])]);
    }
    if (hasTool('gs')) {
      variants.push([
        `${file} by ghostscript`,
        viaTool('gs', (out) => ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=pdfwrite', `-sOutputFile=${out}`, file]),
      ]);
    }
  }
  after(() => rmSync(dir, { recursive: true, force: true }));
  return variants;
}

const explain = (j: RevisionJudgement): string =>
  `${j.problem}: ${j.offending.map((o) => `${o.num} ${o.reason}`).join('; ')}`;

describe("Mohar's own revisions pass the allow-list on other producers' PDFs", () => {
  let pki: TestPki;
  let seal: SignatureProvider;
  before(async () => {
    pki = await createTestPki();
    seal = await softwareSigner({
      keyPem: pki.rsaSigner.keyPem,
      certificate: pki.rsaSigner.der,
      chain: [pki.intermediate.der, pki.root.der],
    });
  });
  after(() => pki?.close());

  for (const [label, load] of producerVariants()) {
    test(label, async () => {
      const at = new Date();
      const prepared = prepareForm(load(), LAYOUT).bytes;
      const certified = (
        await signPades(prepared, seal, {
          level: 'B-B',
          field: { invisible: true, name: 'Mohar certification' },
          certify: { permission: 2 },
          signingTime: at,
        })
      ).bytes;
      const certification = judgeAppendedRevision(prepared, certified, { signingField: 'Mohar certification' });
      assert.ok(certification.accepted, `certification at send: ${explain(certification)}`);
      const filled = fillForm(certified, { txt: 'Hello', rad: 'No', chk: true, drop: 'B' });
      const filling = judgeAppendedRevision(certified, filled, { fillableFields: ['txt', 'rad', 'chk', 'drop'] });
      assert.ok(filling.accepted, `form filling: ${explain(filling)}`);
      const signed = (await signPades(filled, seal, { level: 'B-B', field: { name: 'sig' }, signingTime: at })).bytes;
      const signing = judgeAppendedRevision(filled, signed, { signingField: 'sig', allowLtv: true });
      assert.ok(signing.accepted, `signing: ${explain(signing)}`);
    });
  }
});
