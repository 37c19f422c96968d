/**
 * A form field's appearance updated through an indirect /AP (issue 26 point 8; pyHanko's form-update-*-ap-indirect
 * files expect form filling there): the appearance stream rewritten in place, or the /AP dictionary as its own
 * object rewritten to name a new /N stream, is form filling of that field, so an approval signature before it stays
 * valid. When something else also reaches the object (a catalog key, a page's XObject resources: pyHanko's "sneaky"
 * variants), the same rewrite changes more than the field: other.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { softwareSigner } from '../../../pdf/cms/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { cmsVariants } from '../../support/cms-variants.js';
import { appendUpdate, buildPdf, type FixtureObject } from '../../support/pdf-fixtures.js';

const appearance = (num: number, text: string): FixtureObject => ({
  num,
  dict: '/Type /XObject /Subtype /Form /BBox [0 0 228 20] /Resources << /Font << /Helv 9 0 R >> >>',
  stream: `/Tx BMC BT /Helv 12 Tf 2 6 Td (${text}) Tj ET EMC`,
});

/** A one-page form whose text field "price" has an indirect /AP (object 5) naming its /N stream (object 6). */
function form(options: { catalogExtra?: string; resources?: string } = {}): Buffer {
  return buildPdf(
    [
      {
        num: 1,
        body: `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> ${options.catalogExtra ?? ''} >>`,
      },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      {
        num: 3,
        body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] /Resources << ${options.resources ?? ''} >> >>`,
      },
      {
        num: 4,
        body: '<< /FT /Tx /T (price) /Type /Annot /Subtype /Widget /Rect [72 700 300 720] /P 3 0 R /AP 5 0 R /V (INR 10,00,000) >>',
      },
      { num: 5, body: '<< /N 6 0 R >>' },
      appearance(6, 'INR 10,00,000'),
      { num: 9, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
    ],
    '/Root 1 0 R',
  );
}

const valueChanged: FixtureObject = {
  num: 4,
  body: '<< /FT /Tx /T (price) /Type /Annot /Subtype /Widget /Rect [72 700 300 720] /P 3 0 R /AP 5 0 R /V (INR 12,00,000) >>',
};

describe('appearance updates through an indirect /AP', () => {
  const variants = cmsVariants();
  let sign: (pdf: Buffer) => Promise<Buffer>;

  before(async () => {
    const rsa = variants.signer('rsa');
    const signer = await softwareSigner({ keyPem: readFileSync(rsa.keyPath), certificate: rsa.certPem });
    sign = async (pdf) =>
      (await signPades(pdf, signer, { level: 'B-B', field: { invisible: true }, signingTime: new Date() })).bytes;
  });
  after(() => variants.cleanup());

  const updates: [string, FixtureObject[]][] = [
    ['the /N stream rewritten in place (with the new value)', [appearance(6, 'INR 12,00,000'), valueChanged]],
    [
      'the /AP dictionary rewritten to name a new /N stream',
      [{ num: 5, body: '<< /N 50 0 R >>' }, appearance(50, 'INR 12,00,000'), valueChanged],
    ],
  ];

  for (const [label, objects] of updates) {
    test(`${label}: form filling of "price"; the approval signature before it stays valid`, async () => {
      const bytes = appendUpdate(await sign(form()), objects);
      const s = verifyPdf(bytes).signatures[0]!;
      assert.equal(s.changesAfter, 'form_filling', JSON.stringify(s.changedObjects));
      assert.ok(
        s.changedObjects.every((o) => o.class === 'structure' || o.field === 'price'),
        JSON.stringify(s.changedObjects),
      );
      assert.equal(s.valid, true, s.problems.join('; '));
    });
  }

  const sneaky: [string, { catalogExtra?: string; resources?: string }, FixtureObject[]][] = [
    ['the /AP dictionary is also named by a catalog key', { catalogExtra: '/FooBar 5 0 R' }, [appearance(6, 'INR 1')]],
    ['the stream is also a page XObject', { resources: '/XObject << /X 6 0 R >>' }, [appearance(6, 'INR 1')]],
    [
      'the /AP dictionary, also named by a catalog key, rewritten',
      { catalogExtra: '/FooBar 5 0 R' },
      [{ num: 5, body: '<< /N 50 0 R >>' }, appearance(50, 'INR 1')],
    ],
  ];
  for (const [label, shape, objects] of sneaky) {
    test(`${label}: rewriting it is other`, async () => {
      const s = verifyPdf(appendUpdate(await sign(form(shape)), objects)).signatures[0]!;
      assert.equal(s.changesAfter, 'other', JSON.stringify(s.changedObjects));
      assert.equal(s.valid, false);
    });
  }
});
