/** A Radio field: its options side by side inside the rectangle, as one labelled group (arrow keys move). */
import type { SignerField } from '../types';

interface Props {
  id: string;
  field: SignerField;
  label: string;
  invalid: boolean;
  value: string;
  onChange: (value: string) => void;
}

export function RadioField({ id, field, label, invalid, value, onChange }: Props) {
  const options = field.options ?? [];
  return (
    <div
      id={id}
      className="field-radios"
      role="radiogroup"
      aria-label={label}
      aria-required={field.required || undefined}
      aria-invalid={invalid || undefined}
      tabIndex={-1}
    >
      {options.map((option) => (
        <label key={option}>
          <input type="radio" name={id} value={option} checked={value === option} onChange={() => onChange(option)} />
          <span>{option}</span>
        </label>
      ))}
    </div>
  );
}
