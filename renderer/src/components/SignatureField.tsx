/** "Sign here": opens the signature dialog; once adopted, shows the signature (and changes it on click). */
import { useI18n } from '../i18n/i18n';
import type { AdoptedSignature, SignerField } from '../types';

interface Props {
  id: string;
  field: SignerField;
  label: string;
  invalid: boolean;
  signature: AdoptedSignature | null;
  onOpen: () => void;
}

export function SignatureField({ id, label, invalid, signature, onOpen }: Props) {
  const { t } = useI18n();
  return (
    <button
      type="button"
      id={id}
      className="signature-button"
      onClick={onOpen}
      aria-label={`${label}: ${signature ? t('field.signed') : t('field.signHere')}`}
      aria-invalid={invalid || undefined}
    >
      {signature ? <img src={signature.dataUrl} alt="" /> : <span>{t('field.signHere')}</span>}
    </button>
  );
}
