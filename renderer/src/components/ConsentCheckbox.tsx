/** The consent statement; the act is refused (by the page and by the server) until it is accepted. */
import { useI18n } from '../i18n/i18n';
import type { StringKey } from '../i18n/strings';

export function ConsentCheckbox({
  text,
  checked,
  onChange,
}: {
  text: StringKey;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const { t } = useI18n();
  return (
    <label className="consent">
      <input id="consent" type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <span>{t(text)}</span>
    </label>
  );
}
