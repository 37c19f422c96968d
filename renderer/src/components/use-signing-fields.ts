/**
 * The signing screen's fields: which this recipient holds and must fill, the values typed so far (with the
 * fields the page flagged as wrong), and "Next field" guidance from where the signer last was.
 */
import { useCallback, useMemo, useRef, useState, type Dispatch, type FocusEvent, type SetStateAction } from 'react';
import { FIELD, initialValue, needsInput, readingOrder } from '../fields';
import type { FieldValue, SignerField, SignerView } from '../types';
import { keptAadhaarValues } from './AadhaarPanel';

/** Puts focus on a field (its first control for radio groups) and scrolls it to the middle of the screen. */
export function focusField(fieldId: string): void {
  const element = document.getElementById(`field-${fieldId}`);
  if (!element) return;
  element.scrollIntoView({ block: 'center', inline: 'nearest' });
  const control = element.matches('input, select, button, textarea')
    ? element
    : element.querySelector<HTMLElement>('input, select, button');
  (control ?? element).focus({ preventScroll: true });
}

export interface RecipientFields {
  /** USB DSC signer: signs through the desktop bridge. */
  readonly dsc: boolean;
  /** Aadhaar eSign signer: signed by the eSign service provider. */
  readonly aadhaar: boolean;
  /** This recipient's fields in reading order. */
  readonly fields: SignerField[];
  /** The fields the signer must complete on this page. */
  readonly toFill: SignerField[];
  readonly hasInitials: boolean;
}

export function useRecipientFields(view: SignerView): RecipientFields {
  const dsc = view.recipient.signature_method === 'dsc';
  // Aadhaar eSign signers are signed by the eSign service provider: their Signature field is a placeholder too.
  const aadhaar = view.recipient.signature_method === 'aadhaar';
  // A reviewer only confirms: they hold no fields (the server refuses them at layout time), so none to fill.
  const fields = useMemo(
    () => (view.recipient.role === 'reviewer' ? [] : [...view.fields].sort(readingOrder(view.documents))),
    [view],
  );
  const toFill = useMemo(
    () => fields.filter((f) => needsInput(f) && !((dsc || aadhaar) && f.field_type === FIELD.SIGNATURE)),
    [fields, dsc],
  );
  const hasInitials = fields.some((f) => f.field_type === FIELD.INITIAL);
  return { dsc, aadhaar, fields, toFill, hasInitials };
}

export interface FieldValues {
  readonly values: Record<string, FieldValue>;
  readonly change: (fieldId: string, value: FieldValue) => void;
  /** Fields the page or the server found wrong, shown as such until changed. */
  readonly flagged: ReadonlySet<string>;
  readonly setFlagged: Dispatch<SetStateAction<ReadonlySet<string>>>;
  /** Clears the flags of every field of one type (a signature or initials was adopted). */
  readonly unflagType: (fieldType: number) => void;
}

export function useFieldValues(view: SignerView, fields: readonly SignerField[], aadhaar: boolean): FieldValues {
  const [values, setValues] = useState<Record<string, FieldValue>>(() => ({
    ...Object.fromEntries(
      fields.flatMap((f) => {
        const value = initialValue(f);
        return value === undefined ? [] : [[f.field_id, value]];
      }),
    ),
    // Back from the eSign service provider: what the signer typed before they went.
    ...(aadhaar ? keptAadhaarValues(view) : {}),
  }));
  const [flagged, setFlagged] = useState<ReadonlySet<string>>(new Set());
  const change = useCallback((fieldId: string, value: FieldValue) => {
    setValues((prev) => ({ ...prev, [fieldId]: value }));
    setFlagged((prev) => (prev.has(fieldId) ? new Set([...prev].filter((id) => id !== fieldId)) : prev));
  }, []);
  const unflagType = (fieldType: number) =>
    setFlagged(
      (prev) => new Set([...prev].filter((id) => !fields.some((f) => f.field_id === id && f.field_type === fieldType))),
    );
  return { values, change, flagged, setFlagged, unflagType };
}

/** "Next field": the next pending field after the one the signer was last in (or the consent box when all are done). */
export function useNextField(
  fields: readonly SignerField[],
  pending: readonly SignerField[],
): { trackField: (e: FocusEvent) => void; nextField: () => void } {
  // The field the signer was last in: "Next field" continues from there (pressing the button moves focus to it).
  const lastField = useRef<string | null>(null);
  const trackField = (e: FocusEvent) => {
    const id = (e.target as HTMLElement).closest('[data-field-id]')?.getAttribute('data-field-id');
    if (id) lastField.current = id;
  };
  const nextField = () => {
    if (pending.length === 0) return document.getElementById('consent')?.focus();
    const from = fields.findIndex((f) => f.field_id === lastField.current);
    const after = pending.find((f) => fields.indexOf(f) > from) ?? pending[0]!;
    focusField(after.field_id);
  };
  return { trackField, nextField };
}
