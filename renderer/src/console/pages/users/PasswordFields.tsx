/** A new password typed twice, with the rule shown and the mismatch said before anything is sent. */
import { useT } from '../../i18n';
import { MIN_PASSWORD_LENGTH } from './model';

export interface NewPassword {
  password: string;
  repeat: string;
}

/** The reason the pair cannot be sent, or null. */
export function passwordProblem(value: NewPassword, t: ReturnType<typeof useT>['t']): string | null {
  if (value.password.length < MIN_PASSWORD_LENGTH) return t('password.tooShort');
  if (value.password !== value.repeat) return t('password.mismatch');
  return null;
}

export function PasswordFields({
  value,
  onChange,
  problem,
}: {
  value: NewPassword;
  onChange: (value: NewPassword) => void;
  problem: string | null;
}) {
  const { t } = useT();
  return (
    <>
      <div className="form-field">
        <label htmlFor="new-password">{t('password.new')}</label>
        <input
          id="new-password"
          type="password"
          autoComplete="new-password"
          required
          minLength={MIN_PASSWORD_LENGTH}
          aria-describedby="new-password-rule"
          value={value.password}
          onChange={(e) => onChange({ ...value, password: e.target.value })}
        />
        <span id="new-password-rule" className="hint">
          {t('password.rule')}
        </span>
      </div>
      <div className="form-field">
        <label htmlFor="repeat-password">{t('password.repeat')}</label>
        <input
          id="repeat-password"
          type="password"
          autoComplete="new-password"
          required
          value={value.repeat}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'password-problem' : undefined}
          onChange={(e) => onChange({ ...value, repeat: e.target.value })}
        />
        {problem && (
          <span id="password-problem" className="field-error" role="alert">
            {problem}
          </span>
        )}
      </div>
    </>
  );
}
