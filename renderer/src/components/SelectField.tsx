/** A Dropdown field: one of its options. */
import { useI18n } from '../i18n/i18n';
import type { SignerField } from '../types';

interface Props {
  id: string;
  field: SignerField;
  label: string;
  invalid: boolean;
  value: string;
  onChange: (value: string) => void;
}

export function SelectField({ id, field, label, invalid, value, onChange }: Props) {
  const { t } = useI18n();
  return (
    <select
      id={id}
      className="field-input"
      value={value}
      aria-label={label}
      aria-required={field.required || undefined}
      aria-invalid={invalid || undefined}
      onChange={(e) => onChange(e.target.value)}
    >
      <option value="">{t('field.choose')}</option>
      {(field.options ?? []).map((option) => (
        <option key={option} value={option}>
          {option}
        </option>
      ))}
    </select>
  );
}
