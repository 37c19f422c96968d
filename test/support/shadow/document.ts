/**
 * The document every shadow-attack case starts from: what a sender uploads (a price on page 1 drawn
 * through a form XObject and a font of its own, a paragraph inside an optional content group, a
 * second page) and what Mohar prepares from it at send (prepareForm: the signer's empty signature
 * field, a text field of the signer's, a text field of another recipient's; by default then a
 * certification signature, as at send). Attacks rewrite exactly
 * these objects, so they are named here: /Fm0, /F1, /OC0 (ON) and /OC1 (OFF, the shadow layer).
 */
import { softwareSigner } from '../../../pdf/cms/index.js';
import { prepareForm, moharFieldName, type FormFieldLayout } from '../../../pdf/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import type { SignatureProvider } from '../../../pdf/ports.js';
import { buildPdf } from '../pdf-fixtures.js';
import { createTestPki, type TestPki } from '../pki.js';

/** The visible price: the thing every attack tries to change. */
export const PRICE_TEXT = 'Total price: 1,00,000 rupees';
export const SHADOW_TEXT = 'PRICE CHANGED: 1 RUPEE';

/**
 * The sender's PDF (classic xref table). Objects: 1 catalog, 2 pages, 3-4 pages, 5 content, 6 Fm0, 7 F1, 8-9 OCGs, 10
 * content p2.
 */
export function shadowOriginal(): Buffer {
  const page1 = [
    'q /Fm0 Do Q',
    'BT /F1 11 Tf 72 620 Td (Payment within 30 days of delivery.) Tj ET',
    '/OC /oc0 BDC BT /F1 11 Tf 72 600 Td (Visible clause: goods as per annexure A.) Tj ET EMC',
    '/OC /oc1 BDC BT /F1 11 Tf 72 600 Td (Hidden clause: goods as per annexure B.) Tj ET EMC',
  ].join('\n');
  const objects = [
    {
      num: 1,
      body: '<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [8 0 R 9 0 R] /D << /Order [8 0 R 9 0 R] /ON [8 0 R] /OFF [9 0 R] >> >> >>',
    },
    { num: 2, body: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>' },
    {
      num: 3,
      body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 7 0 R >> /XObject << /Fm0 6 0 R >> /Properties << /oc0 8 0 R /oc1 9 0 R >> >> >>',
    },
    {
      num: 4,
      body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 10 0 R /Resources << /Font << /F1 7 0 R >> >> >>',
    },
    { num: 5, dict: '', stream: page1 },
    {
      num: 6,
      dict: '/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 7 0 R >> >>',
      stream: `BT /F1 18 Tf 72 680 Td (${PRICE_TEXT}) Tj ET`,
    },
    { num: 7, body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>' },
    { num: 8, body: '<< /Type /OCG /Name (Contract) >>' },
    { num: 9, body: '<< /Type /OCG /Name (Draft notes) >>' },
    { num: 10, dict: '', stream: 'BT /F1 11 Tf 72 700 Td (Annexure A: 500 units.) Tj ET' },
  ];
  return buildPdf(objects, '/Root 1 0 R');
}

export const SIGNER_ID = 'signer1';
export const OTHER_ID = 'other2';

/** The layout Mohar turns into AcroForm fields at send (view coordinates, top-left origin). */
export const SHADOW_LAYOUT: readonly FormFieldLayout[] = [
  {
    type: 1,
    page: 1,
    rect: { x: 72, y: 600, width: 200, height: 60 },
    recipientId: SIGNER_ID,
    id: 'sig',
    required: true,
  },
  {
    type: 8,
    page: 1,
    rect: { x: 72, y: 680, width: 200, height: 20 },
    recipientId: SIGNER_ID,
    id: 'note',
    required: false,
  },
  {
    type: 8,
    page: 2,
    rect: { x: 72, y: 680, width: 200, height: 20 },
    recipientId: OTHER_ID,
    id: 'theirs',
    required: false,
  },
];

export interface ShadowPrepared {
  /** The prepared bytes: the original plus the form revision. */
  readonly bytes: Buffer;
  /** The signer's empty signature field. */
  readonly signingField: string;
  /** A text field of the signer's (fillable by them). */
  readonly fillableField: string;
  /** A text field of another recipient (never the signer's to fill). */
  readonly foreignField: string;
}

export function shadowPrepared(): ShadowPrepared {
  return withFields(prepareForm(shadowOriginal(), SHADOW_LAYOUT).bytes);
}

/**
 * As Mohar prepares at send by default (issue 11 §4): the form revision, then a certification signature
 * (DocMDP P=2) by the installation seal in an invisible field, so every validator judges later changes.
 */
export async function shadowPreparedCertified(seal: SignatureProvider): Promise<ShadowPrepared> {
  const form = prepareForm(shadowOriginal(), SHADOW_LAYOUT).bytes;
  const certified = await signPades(form, seal, {
    level: 'B-B',
    field: { invisible: true, name: 'MoharCertification' },
    certify: { permission: 2 },
    signingTime: new Date('2026-11-25T05:00:00Z'),
    reason: 'Certified at send',
  });
  return withFields(certified.bytes);
}

function withFields(bytes: Buffer): ShadowPrepared {
  return {
    bytes,
    signingField: moharFieldName(SIGNER_ID, 'sig'),
    fillableField: moharFieldName(SIGNER_ID, 'note'),
    foreignField: moharFieldName(OTHER_ID, 'theirs'),
  };
}

export interface ShadowKeys {
  readonly pki: TestPki;
  /** The signer's RSA software key, issued by the test PKI. */
  readonly signer: SignatureProvider;
  /** The installation seal's key (EC), for the certification at send. */
  readonly seal: SignatureProvider;
  /** DER certificates for a DSS: signer, intermediate, root. */
  readonly certificates: readonly Uint8Array[];
}

export async function shadowKeys(): Promise<ShadowKeys> {
  const pki = createTestPki({ name: 'Shadow Test' });
  const issued = pki.issueSoftwareSigner({ commonName: 'Asha Attacker', email: 'asha@example.com', keyType: 'rsa' });
  const signer = await softwareSigner({ keyPem: issued.keyPem, certificate: issued.certDer, chain: [...pki.chainDer] });
  const sealCredential = pki.issueSoftwareSigner({ commonName: 'Mohar Installation Seal', keyType: 'ec' });
  const seal = await softwareSigner({
    keyPem: sealCredential.keyPem,
    certificate: sealCredential.certDer,
    chain: [...pki.chainDer],
  });
  return { pki, signer, seal, certificates: [issued.certDer, ...pki.chainDer] };
}
