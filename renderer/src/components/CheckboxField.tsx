/** A checkbox that fills its rectangle; the native control keeps keyboard and screen-reader behaviour. */
import type { SignerField } from '../types';

interface Props {
  id: string;
  field: SignerField;
  label: string;
  invalid: boolean;
  checked: boolean;
  onChange: (value: boolean) => void;
}

export function CheckboxField({ id, field, label, invalid, checked, onChange }: Props) {
  return (
    <input
      id={id}
      className="field-checkbox"
      type="checkbox"
      checked={checked}
      aria-label={label}
      aria-required={field.required || undefined}
      aria-invalid={invalid || undefined}
      onChange={(e) => onChange(e.target.checked)}
    />
  );
}
