/**
 * `mohar verify FILE [--json]` reports the class of change after each signature and lists every `other`,
 * `annotations` and `metadata` object with its reason; it exits 1 when anything after a signature is `other` or
 * `annotations` (document metadata updated by a signing tool is allowed).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { softwareSigner } from '../../pdf/cms/index.js';
import { PdfReader } from '../../pdf/document.js';
import { PdfArray, PdfName, PdfRef } from '../../pdf/objects.js';
import { getPages } from '../../pdf/pages.js';
import { signPades } from '../../pdf/sign/pades.js';
import { IncrementalUpdate } from '../../pdf/write/incremental.js';
import { dict, makeStream, name } from '../../pdf/write/serialize.js';
import { textString } from '../../pdf/write/text.js';
import { createTestPki, type TestPki } from '../support/served-pki.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { mohar } from '../support/cli.js';

const root = new URL('../../', import.meta.url).pathname;
const verify = (file: string, ...flags: string[]) =>
  spawnSync(process.execPath, mohar('verify', file, ...flags), {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    encoding: 'utf8',
    timeout: 60_000,
  });

/** One revision after the signature that edits page 1. */
function afterSigning(bytes: Buffer, change: (u: IncrementalUpdate, page: PdfRef, reader: PdfReader) => void): Buffer {
  const reader = PdfReader.open(bytes);
  const update = new IncrementalUpdate(reader);
  change(update, getPages(reader)[0]!.ref!, reader);
  return update.write().bytes;
}

describe('mohar verify: classes of change after each signature', () => {
  let pki: TestPki;
  let dir: string;
  let signed: Buffer;

  before(async () => {
    pki = await createTestPki();
    const signer = await softwareSigner({
      keyPem: pki.ecSigner.keyPem,
      certificate: pki.ecSigner.der,
      chain: [pki.intermediate.der, pki.root.der],
    });
    const first = await signPades(makePdf({ pages: [{ text: 'Pay 1000 rupees' }] }), signer, {
      level: 'B-B',
      field: { page: 1, rect: { x: 50, y: 50, width: 200, height: 60 } },
      signingTime: new Date('2026-11-20T10:00:00Z'),
    });
    signed = (
      await signPades(first.bytes, signer, {
        level: 'B-B',
        field: { invisible: true },
        signingTime: new Date('2026-11-20T10:00:00Z'),
      })
    ).bytes;
    dir = mkdtempSync(join(tmpdir(), 'mohar-verify-changes-'));
  });
  after(async () => {
    await pki?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const file = (name_: string, bytes: Buffer): string => {
    const path = join(dir, name_);
    writeFileSync(path, bytes);
    return path;
  };

  test('two signatures in sequence: exit 0, "signing" after the first, nothing after the second', () => {
    const run = verify(file('signed.pdf', signed));
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /Changed after it: signatures and validation data only \(signing\)/);
    assert.match(run.stdout, /Changed after it: nothing/);
    const json = JSON.parse(verify(file('signed.pdf', signed), '--json').stdout);
    assert.deepEqual(
      json.signatures.map((s: { changesAfter: string }) => s.changesAfter),
      ['signing', 'none'],
    );
  });

  test('a FreeText annotation added later: exit 1, listed as annotations with its reason', () => {
    const annotated = afterSigning(signed, (u, page, reader) => {
      const annot = u.add(
        dict({
          Type: name('Annot'),
          Subtype: name('FreeText'),
          Rect: new PdfArray([50, 600, 400, 650]),
          Contents: textString('1 RUPEE'),
          DA: textString('/Helv 24 Tf 0 g'),
        }),
      );
      const pageDict = u.editDict(page);
      pageDict.set('Annots', new PdfArray([...(reader.getArray(pageDict, 'Annots')?.items ?? []), annot]));
    });
    const run = verify(file('annotated.pdf', annotated));
    assert.equal(run.status, 1, run.stdout);
    assert.match(run.stdout, /ANNOTATIONS added or changed \(annotations\)/);
    assert.match(
      run.stdout,
      /annotations: object \d+: new annotation \/FreeText on page 1 \(not a widget of a form field\)/,
    );
    assert.match(
      run.stdout,
      /All signatures are valid/,
      'an annotation alone does not break the signatures; the exit code still flags it',
    );
    const json = JSON.parse(verify(file('annotated.pdf', annotated), '--json').stdout);
    assert.equal(json.signatures[1].changesAfter, 'annotations');
    assert.ok(
      json.signatures[1].changedObjects.some(
        (o: { class: string; reason: string }) => o.class === 'annotations' && /FreeText/.test(o.reason),
      ),
    );
  });

  test('document metadata updated later (a new /Info, catalog /Version): exit 0, listed as metadata', () => {
    const updated = afterSigning(signed, (u, _page, reader) => {
      // IncrementalUpdate carries the previous trailer's entries: a new /Info goes in through the reader it extends.
      reader.trailer.set('Info', u.add(dict({ Producer: textString('Acrobat'), ModDate: textString('D:20261129') })));
      u.editDict(reader.trailer.get('Root') as PdfRef).set('Version', new PdfName('2.0'));
    });
    const run = verify(file('metadata.pdf', updated));
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /Changed after it: document metadata \(\/Info, XMP, \/Version\), .* \(metadata\)/);
    assert.match(run.stdout, /metadata: trailer: trailer \/Info added \(new document information dictionary \d+\)/);
    assert.match(run.stdout, /metadata: object \d+: catalog \/Version added \(\/2\.0\)/);
    assert.match(run.stdout, /All signatures are valid/);
    const json = JSON.parse(verify(file('metadata.pdf', updated), '--json').stdout);
    assert.deepEqual(
      json.signatures.map((s: { changesAfter: string }) => s.changesAfter),
      ['signing', 'metadata'],
    );
  });

  test('page content rewritten later: exit 1, listed as other with its reason', () => {
    const forged = afterSigning(signed, (u, _page, reader) => {
      const content = getPages(reader)[0]!.dict.get('Contents');
      assert.ok(content instanceof PdfRef, 'page 1 has a content stream of its own');
      u.set(content, makeStream(dict({}), Buffer.from('BT /F1 12 Tf 72 700 Td (Pay 1 rupee) Tj ET')));
    });
    const run = verify(file('forged.pdf', forged));
    assert.equal(run.status, 1, run.stdout);
    assert.match(run.stdout, /OTHER CHANGES \(other\)/);
    assert.match(run.stdout, /other: object \d+: page 1 content stream \(object \d+\) rewritten/);
    assert.match(run.stdout, /NOT all signatures are valid/);
  });
});
