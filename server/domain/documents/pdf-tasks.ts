/**
 * The CPU-bound PDF work that untrusted input can make expensive, as plain functions over bytes: they
 * run inside the worker pool (pdf-pool.ts) with its memory and time caps, never on the event loop.
 * Inputs and outputs cross the thread boundary by structured clone, so they hold only data (bytes,
 * strings, numbers, plain objects, Dates); a Buffer arrives as a Uint8Array.
 */
import {
  addTestMark,
  fillForm,
  fitPng,
  inspectPdf,
  judgeAppendedRevision,
  fieldsNotLocked,
  listFormFieldNames,
  PdfReader,
  prepareForm,
  prepareSignature,
  verifyPdf,
  type FormFieldLayout,
  type FormValues,
  type PdfInfo,
  type PdfLimits,
  type PreparedSignature,
  type PrepareOptions,
  type RevisionJudgement,
  type RevisionPolicy,
  type VerifyReport,
} from '../../../pdf/index.js';
import { judgeChains, type AnchorSet, type ChainTrust } from '../verify/chain-trust.js';
import {
  prepareCertificate,
  type CertificateInput,
  type CertificateLayoutOptions,
} from '../../audit/certificate-layout.js';

/** A signature image above this many pixels is downscaled before it is embedded (4 megapixels). */
export const MAX_SIGNATURE_IMAGE_PIXELS = 4_000_000;

export interface UploadCheck {
  /** The allow-list's verdict on the appended revision (pdf/verify/judge.ts). */
  readonly judgement: RevisionJudgement;
  /** The uploaded file as our verifier sees it; null when the judgement refused it or it cannot be read. */
  readonly report: VerifyReport | null;
  /** Why the verifier could not read it (then report is null). */
  readonly readError: string | null;
}

export interface PreparedWithImage {
  readonly prepared: PreparedSignature;
  /** Size of the embedded appearance image, when there is one, and whether it had to be shrunk. */
  readonly image: { readonly width: number; readonly height: number; readonly downscaled: boolean } | null;
}

export interface PreparedSend {
  /**
   * The upload with Mohar's form fields (one revision) and, for a test envelope, the TEST mark (one more); null when
   * neither was added.
   */
  readonly form: Uint8Array | null;
  /** Why the upload cannot be certified: it is certified (DocMDP) or signed already; null when it can. */
  readonly blocked: 'certified' | 'signed' | null;
  /** The certification revision over `form` (or the upload), up to the digest; null when not asked or blocked. */
  readonly certification: PreparedSignature | null;
}

/** Every task: its input and what it returns. `limits` are the pool's PDF parsing limits. */
export const PDF_TASKS = {
  inspect: (input: { bytes: Uint8Array }, limits: Partial<PdfLimits>): PdfInfo => inspectPdf(input.bytes, limits),

  /** The DSC prepared document: the signer's values filled in one revision. */
  fill: (input: { bytes: Uint8Array; values: FormValues }): Uint8Array => fillForm(input.bytes, input.values),

  /**
   * The electronic act up to the digest: values, appearance (image fitted), the initials' picture (fitted the
   * same way: it is as untrusted as the signature image) and placeholder in one revision.
   */
  prepareSignature: (input: { bytes: Uint8Array; options: PrepareOptions }): PreparedWithImage => {
    const image = input.options.appearance?.image;
    const fitted = image ? fitPng(image, MAX_SIGNATURE_IMAGE_PIXELS) : undefined;
    const withImage = fitted
      ? { ...input.options, appearance: { ...input.options.appearance, image: fitted.bytes } }
      : input.options;
    const initials = input.options.imageFields;
    const options = initials
      ? { ...withImage, imageFields: { ...initials, image: fitPng(initials.image, MAX_SIGNATURE_IMAGE_PIXELS).bytes } }
      : withImage;
    const prepared = prepareSignature(input.bytes, options);
    return {
      prepared,
      image: fitted ? { width: fitted.width, height: fitted.height, downscaled: fitted.downscaled } : null,
    };
  },

  /**
   * Send (server/domain/workflow/certify-document.ts): the form fields of the layout, then, when `certify`
   * is given and the upload allows it, the certification revision up to the digest the seal signs. The
   * certification locks (FieldMDP /Include) every field the upload brought that no recipient holds (`held`:
   * the upload's fields a recipient signs in), so that no later value or appearance of it is allowed.
   */
  prepareSend: (
    input: {
      original: Uint8Array;
      layout: FormFieldLayout[];
      certify: PrepareOptions | null;
      testMark?: boolean;
      held?: readonly string[];
    },
    limits: Partial<PdfLimits>,
  ): PreparedSend => {
    const fields = input.layout.length > 0 ? prepareForm(input.original, input.layout).bytes : null;
    // A test envelope's documents show "TEST – no legal effect" on every page, under the certification.
    const form = input.testMark ? addTestMark(fields ?? input.original) : fields;
    if (!input.certify) return { form, blocked: null, certification: null };
    const info = inspectPdf(input.original, limits);
    const blocked =
      info.docMdpPermission !== null ? 'certified' : info.signatureFields.some((f) => f.signed) ? 'signed' : null;
    if (blocked) return { form, blocked, certification: null };
    const held = new Set(input.held ?? []);
    const lockedFields = listFormFieldNames(input.original, limits).filter((name) => !held.has(name));
    const options: PrepareOptions =
      lockedFields.length > 0 ? { ...input.certify, lock: { action: 'Include', fields: lockedFields } } : input.certify;
    return { form, blocked, certification: prepareSignature(form ?? input.original, options) };
  },

  /**
   * The certificate of completion laid out, with its seal's signature revision up to the digest
   * (server/domain/workflow/certificate-off-loop.ts).
   */
  prepareCertificate: (input: {
    input: CertificateInput;
    layout: CertificateLayoutOptions;
    options: PrepareOptions;
  }): PreparedSignature => prepareCertificate(input.input, input.layout, input.options),

  /**
   * A USB DSC upload: the allow-list's judgement against the prepared bytes, then (if accepted) our verifier's report.
   */
  checkUpload: (input: { prepared: Uint8Array; uploaded: Uint8Array; policy: RevisionPolicy }): UploadCheck => {
    const judgement = judgeAppendedRevision(input.prepared, input.uploaded, input.policy);
    if (!judgement.accepted) return { judgement, report: null, readError: null };
    try {
      return { judgement, report: verifyPdf(input.uploaded), readError: null };
    } catch (error) {
      return { judgement, report: null, readError: (error as Error).message };
    }
  },

  /** Our verifier's report on a stored PDF (GET …/documents/{id}/signatures); readError when it cannot be read. */
  verify: (input: { bytes: Uint8Array }): { report: VerifyReport | null; readError: string | null } => {
    try {
      return { report: verifyPdf(input.bytes), readError: null };
    } catch (error) {
      return { report: null, readError: (error as Error).message };
    }
  },

  /**
   * The public verifier (/verify): the upload read once with the intake limits (inspectPdf refuses what intake
   * refuses), then our verifier's report and each signature's chain against the trust anchors (chain-trust.ts).
   */
  verifyPublic: (
    input: { bytes: Uint8Array; anchors: AnchorSet; now: Date },
    limits: Partial<PdfLimits>,
  ): { report: VerifyReport | null; chains: ChainTrust[]; readError: string | null } => {
    inspectPdf(input.bytes, limits);
    try {
      const report = verifyPdf(input.bytes);
      return { report, chains: judgeChains(input.bytes, report.signatures, input.anchors, input.now), readError: null };
    } catch (error) {
      return { report: null, chains: [], readError: (error as Error).message };
    }
  },

  /** The fields no signature of the document locks yet: what the completion lock locks (completion-seal.ts). */
  fieldsNotLocked: (input: { bytes: Uint8Array }, limits: Partial<PdfLimits>): string[] =>
    fieldsNotLocked(PdfReader.open(input.bytes, limits)),

  /** A revision Mohar built itself, judged by the same allow-list (server/domain/workflow/revision-guard.ts). */
  judgeRevision: (input: { prior: Uint8Array; next: Uint8Array; policy: RevisionPolicy }): RevisionJudgement =>
    judgeAppendedRevision(input.prior, input.next, input.policy),
} as const;

export type PdfTaskKind = keyof typeof PDF_TASKS;
export type PdfTaskInput<K extends PdfTaskKind> = Parameters<(typeof PDF_TASKS)[K]>[0];
export type PdfTaskOutput<K extends PdfTaskKind> = ReturnType<(typeof PDF_TASKS)[K]>;

/** Runs one task (in the worker); `limits` only matter to tasks that parse with explicit limits. */
export function runPdfTask<K extends PdfTaskKind>(
  kind: K,
  input: PdfTaskInput<K>,
  limits: Partial<PdfLimits>,
): PdfTaskOutput<K> {
  const task = PDF_TASKS[kind] as (input: PdfTaskInput<K>, limits: Partial<PdfLimits>) => PdfTaskOutput<K>;
  return task(input, limits);
}
