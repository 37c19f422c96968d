/** Text, Number and Date fields. Numbers use a text input with a numeric keyboard (no spinner to mis-scroll). */
import { FIELD } from '../fields';
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

export function TextField({ id, field, label, invalid, value, onChange }: Props) {
  const { t } = useI18n();
  const number = field.field_type === FIELD.NUMBER;
  return (
    <input
      id={id}
      className="field-input"
      type={field.field_type === FIELD.DATE ? 'date' : 'text'}
      inputMode={number ? 'decimal' : undefined}
      pattern={number ? '-?[0-9]*[.,]?[0-9]*' : undefined}
      value={value}
      aria-label={label}
      aria-required={field.required || undefined}
      aria-invalid={invalid || undefined}
      title={invalid ? t('field.missing') : label}
      placeholder={field.label ?? ''}
      onChange={(e) => onChange(number ? e.target.value.replace(',', '.') : e.target.value)}
    />
  );
}
