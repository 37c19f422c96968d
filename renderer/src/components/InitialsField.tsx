/** "Initial here": opens the initials dialog; once adopted, every Initials field of this signer shows them. */
import { useI18n } from '../i18n/i18n';
import type { AdoptedSignature } from '../types';

interface Props {
  id: string;
  label: string;
  invalid: boolean;
  initials: AdoptedSignature | null;
  onOpen: () => void;
}

export function InitialsField({ id, label, invalid, initials, onOpen }: Props) {
  const { t } = useI18n();
  return (
    <button
      type="button"
      id={id}
      className="signature-button initials-button"
      onClick={onOpen}
      aria-label={`${label}: ${initials ? t('field.initialed') : t('field.initialHere')}`}
      aria-invalid={invalid || undefined}
    >
      {initials ? <img src={initials.dataUrl} alt="" /> : <span>{t('field.initialHere')}</span>}
    </button>
  );
}
