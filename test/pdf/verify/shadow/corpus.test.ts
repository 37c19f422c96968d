/**
 * The shadow-attack regression corpus (issue 11, point 3): for every published attack class, the
 * attacker's upload (the prepared bytes + a revision that signs the signer's field with a real key
 * AND attacks) is refused by judgeAppendedRevision with a reason naming the offending object, and
 * verifyPdf flags it; the benign controls are accepted, so the allow-list is not "refuse everything".
 * qpdf and pdfsig are asked too: they call most of these files well-formed and validly signed,
 * which is exactly why a revision must be judged by what it changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PdfReader } from '../../../../pdf/document.js';
import { judgeAppendedRevision, verifyPdf, type RevisionPolicy } from '../../../../pdf/verify/index.js';
import { hasTool, qpdfCheck } from '../../../support/pdf-fixtures.js';
import { pdfsigVerdicts } from '../../../support/validators.js';
import {
  ATTACK_CASES,
  BENIGN_CASES,
  shadowKeys,
  shadowPrepared,
  shadowPreparedCertified,
  type CaseContext,
  type ShadowKeys,
} from '../../../support/shadow/corpus.js';
import { appendedPrefixes, verifierFlags } from '../../../support/shadow/kit.js';

const policyFor = (c: { fillable?: (ctx: CaseContext) => readonly string[] }, ctx: CaseContext): RevisionPolicy => ({
  signingField: ctx.signingField,
  allowLtv: true,
  ...(c.fillable ? { fillableFields: c.fillable(ctx) } : {}),
});

const PREPARATIONS = [
  { label: 'certified at send (DocMDP P=2, the default)', certified: true },
  { label: 'not certified (MOHAR_CERTIFY_AT_SEND=0)', certified: false },
] as const;

for (const preparation of PREPARATIONS) {
  describe(`shadow-attack corpus (NDSS 2021 shadow attacks; CCS 2019 ISA, SWA, USF), prepared ${preparation.label}`, () => {
    let keys: ShadowKeys;
    let ctx: CaseContext;
    const built = new Map<string, Buffer>();

    before(async () => {
      keys = await shadowKeys();
      const prepared = preparation.certified ? await shadowPreparedCertified(keys.seal) : shadowPrepared();
      ctx = { ...prepared, prepared: prepared.bytes, signer: keys.signer, certificates: keys.certificates };
      for (const c of [...ATTACK_CASES, ...BENIGN_CASES]) built.set(c.name, await c.build(ctx));
    });
    after(() => keys?.pki.cleanup());

    test('the prepared document is a well-formed form with the signer’s empty signature field, a prefix of every upload', () => {
      assert.ok(qpdfCheck(ctx.prepared).ok, qpdfCheck(ctx.prepared).output);
      assert.equal(verifyPdf(ctx.prepared).signatures.length, preparation.certified ? 1 : 0);
      for (const c of [...ATTACK_CASES, ...BENIGN_CASES]) {
        assert.ok(
          built.get(c.name)!.subarray(0, ctx.prepared.length).equals(ctx.prepared),
          `${c.name}: the prepared bytes are a prefix`,
        );
      }
    });

    for (const c of ATTACK_CASES) {
      test(
        `${c.attack} — ${c.name}: judgeAppendedRevision refuses it, naming the offending object`,
        { todo: c.gaps?.judge ?? false },
        () => {
          const judgement = judgeAppendedRevision(ctx.prepared, built.get(c.name)!, policyFor(c, ctx));
          assert.equal(judgement.accepted, false, `accepted: ${JSON.stringify(judgement.objects)}`);
          assert.match(judgement.problem ?? '', c.reason);
        },
      );
      // What a standalone verifier can judge is what changed AFTER a signature. An attack inside the revision the
      // signer's own signature covers is visible to it only when something earlier can object: the certification
      // at send. Without it only the upload rule (the judge above, the server) refuses such a change. And filling
      // or signing a field is what P=2 allows: whose field it was is for the server's policy alone.
      if (c.attack === 'policy' || (!preparation.certified && c.where === 'signing-revision')) continue;
      test(`${c.attack} — ${c.name}: verifyPdf flags it`, { todo: c.gaps?.verifier ?? false }, () => {
        const verdict = verifierFlags(built.get(c.name)!);
        assert.ok(verdict.flagged, verdict.summary);
      });
    }

    test('qpdf --check calls every attack that keeps the file well-formed well-formed', () => {
      for (const c of ATTACK_CASES.filter((x) => x.wellFormed)) {
        assert.ok(qpdfCheck(built.get(c.name)!).ok, `${c.name}: ${qpdfCheck(built.get(c.name)!).output}`);
      }
    });

    if (!preparation.certified) {
      test(
        'pdfsig calls the signature of every attack inside the signing revision valid (the bug: a valid signature proves nothing about the change)',
        { skip: !hasTool('pdfsig') },
        () => {
          for (const c of ATTACK_CASES.filter((x) => x.where === 'signing-revision')) {
            const verdicts = pdfsigVerdicts(built.get(c.name)!);
            assert.deepEqual(verdicts.valid, [true], `${c.name}: ${verdicts.output}`);
          }
        },
      );
    }

    for (const c of BENIGN_CASES) {
      test(`benign — ${c.name}: accepted by the judge, revision by revision`, () => {
        const bytes = built.get(c.name)!;
        let prior = ctx.prepared;
        for (const next of appendedPrefixes(
          ctx.prepared,
          bytes,
          PdfReader.open(bytes).revisions.map((r) => r.end),
        )) {
          const judgement = judgeAppendedRevision(prior, next, policyFor(c, ctx));
          assert.equal(judgement.accepted, true, `${judgement.problem}: ${JSON.stringify(judgement.offending)}`);
          prior = next;
        }
      });
      test(`benign — ${c.name}: valid for verifyPdf and pdfsig`, () => {
        const bytes = built.get(c.name)!;
        const verdict = verifierFlags(bytes);
        assert.equal(verdict.flagged, false, verdict.summary);
        if (!hasTool('pdfsig')) return;
        const poppler = pdfsigVerdicts(bytes);
        assert.ok(poppler.valid.length > 0 && poppler.valid.every(Boolean), poppler.output);
      });
    }
  });
}
