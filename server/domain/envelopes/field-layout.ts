/**
 * Checks a whole field layout for one document and reports every problem at once, by field index.
 * Coordinates are PDF points from the top-left corner of the page as a viewer shows it (CropBox,
 * after /Rotate): the same convention as pdf/geometry.ts, so the visible size is what bounds them.
 */
import type { ErrorItem } from '../../../common/errors.js';
import {
  AUTO_FILLED_TYPES,
  CHOICE_TYPES,
  FIELD_TYPES,
  fieldRefusal,
  isFieldType,
  optionsProblem,
  valueMismatch,
  type FieldRefusal,
  type ValueMismatch,
} from '../../../common/fields.js';

/** The most options a Dropdown or Radio field may have. */
const MAX_OPTIONS = 200;

/** What a value that does not fit its type should be (common/fields.ts decides the fit). */
const MISMATCH_REASONS: Readonly<Record<ValueMismatch, string>> = {
  checkbox: 'a Checkbox value is "true" or "false"',
  number: 'a Number value must be a number',
  date: 'a Date value is a date as YYYY-MM-DD',
};

export interface FieldInput {
  recipient_id: string;
  field_type: number;
  page_number?: number;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  x1?: number;
  y1?: number;
  x2?: number;
  y2?: number;
  label?: string;
  value?: string;
  options?: string[];
  pdf_signature_field?: string;
  required?: boolean;
  /** The signer may change the pre-assigned `value`; default false (read-only for them). */
  editable?: boolean;
}

export interface LayoutRecipient {
  readonly id: string;
  readonly role: string;
  readonly signature_method: string;
  readonly name: string;
}

export interface LayoutDocument {
  /** Visible page sizes, index 0 = page 1. */
  readonly pages: readonly { width: number; height: number }[];
  readonly signatureFields: readonly {
    name: string;
    signed: boolean;
    pageNumber?: number | null;
    rect?: ViewRect | null;
  }[];
}

export interface ViewRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedField {
  recipient_id: string;
  field_type: number;
  page_number: number;
  rect: ViewRect;
  label: string | null;
  value: string | null;
  options: string[] | null;
  pdf_signature_field: string | null;
  required: boolean;
  editable: boolean;
}

export type LayoutResult = { ok: true; fields: PlacedField[] } | { ok: false; errors: ErrorItem[] };

/** Why a recipient may not hold a field (common/fields.ts decides), as the layout reports it. */
function refusalProblem(refusal: FieldRefusal, role: string): { message: string; code: string } {
  switch (refusal) {
    case 'cc':
      return { message: 'cc recipients receive a copy and hold no fields', code: 'role_mismatch' };
    case 'reviewer':
      return {
        message:
          'a reviewer confirms they have read the document and holds no fields; give fields to a signer or an approver',
        code: 'role_mismatch',
      };
    case 'notSigner':
      return {
        message: `a ${role} does not sign; Signature and Initial fields belong to signers`,
        code: 'role_mismatch',
      };
    case 'dscInitial':
      return {
        message: 'Initial (type 2) is not available for USB DSC signers',
        code: 'initial_not_available_for_dsc',
      };
    // An Aadhaar eSign signature is made by the ESP over the prepared revision, once; drawn initials would be
    // a second, electronic mark of a signer whose legal signature is the eSign one (as for a USB token).
    case 'aadhaarInitial':
      return {
        message: 'Initial (type 2) is not available for Aadhaar eSign signers',
        code: 'initial_not_available_for_aadhaar',
      };
  }
}

/** Rounding in clients must not make a field that touches the page edge invalid. */
const EPSILON = 0.01;
const BOX_KEYS = ['x', 'y', 'width', 'height'] as const;
const CORNER_KEYS = ['x1', 'y1', 'x2', 'y2'] as const;

function placementOf(
  f: FieldInput,
  problem: (reason: string, code?: string) => undefined,
): ViewRect | 'named' | undefined {
  const box = BOX_KEYS.filter((k) => f[k] !== undefined);
  const corners = CORNER_KEYS.filter((k) => f[k] !== undefined);
  const named = f.pdf_signature_field !== undefined;
  const chosen = [box.length > 0, corners.length > 0, named].filter(Boolean).length;
  if (chosen === 0) {
    return problem(
      'place the field by x/y/width/height, by x1/y1/x2/y2, or (USB DSC signature only) by pdf_signature_field',
      'placement_missing',
    );
  }
  if (chosen > 1) {
    return problem(
      'use exactly one placement: x/y/width/height, x1/y1/x2/y2 or pdf_signature_field',
      'placement_ambiguous',
    );
  }
  if (named) return 'named';
  if (box.length > 0) {
    if (box.length < 4) {
      return problem(
        `x, y, width and height go together; missing ${BOX_KEYS.filter((k) => f[k] === undefined).join(', ')}`,
        'placement_incomplete',
      );
    }
    if (f.width! <= 0 || f.height! <= 0) return problem('width and height must be greater than 0', 'empty_rectangle');
    return { x: f.x!, y: f.y!, width: f.width!, height: f.height! };
  }
  if (corners.length < 4) {
    return problem(
      `x1, y1, x2 and y2 go together; missing ${CORNER_KEYS.filter((k) => f[k] === undefined).join(', ')}`,
      'placement_incomplete',
    );
  }
  if (f.x2! <= f.x1! || f.y2! <= f.y1!) {
    return problem('x2 must be greater than x1 and y2 greater than y1 (top-left origin)', 'empty_rectangle');
  }
  return { x: f.x1!, y: f.y1!, width: f.x2! - f.x1!, height: f.y2! - f.y1! };
}

function checkValue(f: FieldInput, problem: (reason: string, code?: string) => undefined): void {
  const isChoice = CHOICE_TYPES.has(f.field_type);
  if (isChoice) {
    const options = f.options ?? [];
    const unusable = optionsProblem(options);
    if (unusable === 'missing') {
      problem('Dropdown and Radio fields need options: a non-empty list of strings', 'options_missing');
    } else if (options.length > MAX_OPTIONS) problem(`at most ${MAX_OPTIONS} options`, 'options_invalid');
    else if (unusable === 'invalid') {
      problem('options must be distinct, non-empty strings', 'options_invalid');
    } else if (f.value !== undefined && !options.includes(f.value)) {
      problem(`value "${f.value}" is not one of the options`, 'value_invalid');
    }
  } else if (f.options !== undefined) {
    problem('options are only for Dropdown (12) and Radio (13) fields', 'options_invalid');
  }
  if (f.value === undefined) return;
  if (AUTO_FILLED_TYPES.has(f.field_type)) {
    return problem(
      "this field type is filled from the signer's details or the signing act and takes no value",
      'value_invalid',
    );
  }
  const mismatch = valueMismatch(f.field_type, f.value);
  if (mismatch !== null) problem(MISMATCH_REASONS[mismatch], 'value_invalid');
}

/**
 * The value rules alone, for a layout checked before and a value given later (a template instantiated
 * with field_values): the same problems validateFieldLayout would report for this field.
 */
export function valueProblems(
  f: Pick<FieldInput, 'field_type' | 'value' | 'options'>,
): { code: string; message: string }[] {
  const problems: { code: string; message: string }[] = [];
  checkValue(f as FieldInput, (message, code = 'invalid_field') => {
    problems.push({ code, message });
    return undefined;
  });
  return problems;
}

export function validateFieldLayout(
  fields: readonly FieldInput[],
  recipients: readonly LayoutRecipient[],
  document: LayoutDocument,
): LayoutResult {
  const errors: ErrorItem[] = [];
  const placed: PlacedField[] = [];
  const usedSignatureFields = new Map<string, number>();
  const byId = new Map(recipients.map((r) => [r.id, r]));

  fields.forEach((f, index) => {
    let bad = false;
    const problem = (message: string, code = 'invalid_field'): undefined => {
      bad = true;
      errors.push({ index, path: `/fields/${index}`, code, message });
      return undefined;
    };
    const recipient = byId.get(f.recipient_id);
    if (!recipient) problem(`recipient ${f.recipient_id} is not a recipient of this envelope`, 'unknown_recipient');
    if (!isFieldType(f.field_type)) problem('field_type must be an integer from 1 to 13', 'unknown_field_type');
    const isDsc = recipient?.role === 'signer' && recipient.signature_method === 'dsc';
    // A cc gets a copy and a reviewer only confirms: neither act writes into the document, so a field of
    // theirs could never be filled (its input would be lost). Approvers fill theirs; only signers sign.
    const refusal = recipient ? fieldRefusal(f.field_type, recipient.role, recipient.signature_method) : null;
    if (recipient && refusal) {
      const { message, code } = refusalProblem(refusal, recipient.role);
      problem(message, code);
    }
    if (f.pdf_signature_field !== undefined && !(isDsc && f.field_type === FIELD_TYPES.SIGNATURE)) {
      problem(
        'pdf_signature_field is only for the Signature field (type 1) of a USB DSC signer',
        'placement_not_allowed',
      );
    }
    checkValue(f, problem);

    const placement = placementOf(f, problem);
    let pageNumber = f.page_number;
    let rect: ViewRect | undefined;
    if (placement === 'named') {
      const target = document.signatureFields.find((s) => s.name === f.pdf_signature_field);
      const available = document.signatureFields.filter((s) => !s.signed).map((s) => s.name);
      if (!target) {
        problem(
          `the PDF has no signature field "${f.pdf_signature_field}"; empty signature fields: ${available.join(', ') || 'none'}`,
          'signature_field_missing',
        );
      } else if (target.signed) {
        problem(
          `the PDF signature field "${f.pdf_signature_field}" is already signed; empty ones: ${available.join(', ') || 'none'}`,
          'signature_field_signed',
        );
      } else {
        const previous = usedSignatureFields.get(target.name);
        if (previous !== undefined) {
          problem(
            `the PDF signature field "${target.name}" is used by field ${previous} already`,
            'signature_field_reused',
          );
        }
        usedSignatureFields.set(target.name, index);
        const widgetPage = target.pageNumber ?? 1;
        if (pageNumber !== undefined && pageNumber !== widgetPage) {
          problem(
            `the PDF signature field "${target.name}" is on page ${widgetPage}, not ${pageNumber}`,
            'page_mismatch',
          );
        }
        pageNumber = widgetPage;
        rect = target.rect ?? { x: 0, y: 0, width: 0, height: 0 };
      }
    } else if (placement) {
      rect = placement;
      if (pageNumber === undefined) problem('page_number is required (pages start at 1)', 'page_missing');
    }
    if (
      pageNumber !== undefined &&
      (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > document.pages.length)
    ) {
      problem(
        `page_number ${pageNumber} is outside the document (pages 1 to ${document.pages.length})`,
        'page_out_of_range',
      );
    } else if (placement && placement !== 'named' && pageNumber !== undefined && rect) {
      const page = document.pages[pageNumber - 1]!;
      if (
        rect.x < -EPSILON ||
        rect.y < -EPSILON ||
        rect.x + rect.width > page.width + EPSILON ||
        rect.y + rect.height > page.height + EPSILON
      ) {
        problem(
          `the rectangle (x ${rect.x}, y ${rect.y}, width ${rect.width}, height ${rect.height}) is not inside page ${pageNumber}, which is ${page.width} x ${page.height} points as displayed`,
          'outside_page',
        );
      }
    }
    if (!bad && rect && pageNumber !== undefined) {
      placed.push({
        recipient_id: f.recipient_id,
        field_type: f.field_type,
        page_number: pageNumber,
        rect,
        label: f.label ?? null,
        value: f.value ?? null,
        options: f.options ?? null,
        pdf_signature_field: f.pdf_signature_field ?? null,
        required: f.required ?? f.field_type !== FIELD_TYPES.CHECKBOX,
        editable: f.editable ?? false,
      });
    }
  });

  // USB DSC: exactly one Signature field per DSC signer.
  for (const recipient of recipients.filter((r) => r.role === 'signer' && r.signature_method === 'dsc')) {
    const indexes = fields.flatMap((f, i) =>
      f.recipient_id === recipient.id && f.field_type === FIELD_TYPES.SIGNATURE ? [i] : [],
    );
    if (indexes.length === 0) {
      errors.push({
        path: '/fields',
        code: 'dsc_signature_field_count',
        message: `USB DSC signer ${recipient.name} (${recipient.id}) needs exactly one Signature field (field_type 1); none given`,
      });
    }
    for (const index of indexes.slice(1)) {
      errors.push({
        index,
        path: `/fields/${index}`,
        code: 'dsc_signature_field_count',
        message: `USB DSC signer ${recipient.name} may have exactly one Signature field; field ${indexes[0]} is one already`,
      });
    }
  }
  return errors.length > 0
    ? { ok: false, errors: errors.sort((a, b) => (a.index ?? -1) - (b.index ?? -1)) }
    : { ok: true, fields: placed };
}
