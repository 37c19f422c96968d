/**
 * The mail server form: checked as typed before Save, refusals from the server shown on the field they name.
 * The password is never prefilled (the server never sends it): empty keeps the saved one. Read-only when the
 * environment sets the server.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { api, ApiError } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { legacy } from '../developer/model';
import { Field } from './MailField';
import {
  bodyOf,
  checkForm,
  formOf,
  sameForm,
  TLS_MODES,
  type FormErrors,
  type MailForm,
  type MailSettings,
} from './mail-settings-model';

interface Props {
  settings: MailSettings;
  onChanged: (settings: MailSettings, message: 'mail.saved' | 'mail.removed') => void;
  onDirty: (dirty: boolean) => void;
}

export function MailServerForm({ settings, onChanged, onDirty }: Props) {
  const { t } = useT();
  const id = useId();
  const readOnly = settings.source === 'environment';
  const [form, setForm] = useState<MailForm>(() => formOf(settings));
  const [errors, setErrors] = useState<FormErrors>({});
  const [serverError, setServerError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => setForm(formOf(settings)), [settings]);
  const dirty = !sameForm(form, formOf(settings));
  useEffect(() => onDirty(dirty), [dirty, onDirty]);

  const edit = (patch: Partial<MailForm>) => setForm((current) => ({ ...current, ...patch }));
  const message = (key: keyof FormErrors) => (errors[key] ? t(errors[key]) : undefined);
  // Read-only (the environment's server) the typing hints would only distract: left out.
  const hint = (key: Parameters<typeof t>[0]) => (readOnly ? undefined : t(key));

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const found = checkForm(form);
    setErrors(found);
    setServerError(null);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      onChanged(await api<MailSettings>('PUT', legacy('/mail/settings/'), { json: bodyOf(form) }), 'mail.saved');
    } catch (error) {
      // The server judges what the page cannot: e.g. a host on a private address (its detail says why).
      const listed = error instanceof ApiError ? (error.problem.errors as { path?: string }[] | undefined) : undefined;
      const path = listed?.[0]?.path ?? '';
      if (path.endsWith('/host')) setErrors({ host: 'mail.error.host' });
      if (path.endsWith('/password')) setErrors({ password: 'mail.error.passwordAgain' });
      setServerError(error);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    setBusy(true);
    setServerError(null);
    try {
      onChanged(await api<MailSettings>('DELETE', legacy('/mail/settings/')), 'mail.removed');
    } catch (error) {
      setServerError(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void save(e)} noValidate aria-labelledby={`${id}-title`} className="card">
      <h2 id={`${id}-title`}>{t('mail.title')}</h2>
      <fieldset disabled={readOnly || busy} className="plain-fieldset">
        <div className="form-grid">
          <Field id={`${id}-host`} label={t('mail.host')} hint={hint('mail.hostHint')} error={message('host')}>
            {(describedBy) => (
              <input
                id={`${id}-host`}
                value={form.host}
                autoComplete="off"
                placeholder="smtp.example.com"
                aria-invalid={errors.host ? true : undefined}
                aria-describedby={describedBy}
                onChange={(e) => edit({ host: e.target.value })}
              />
            )}
          </Field>
          <Field id={`${id}-port`} label={t('mail.port')} hint={hint('mail.portHint')} error={message('port')}>
            {(describedBy) => (
              <input
                id={`${id}-port`}
                inputMode="numeric"
                value={form.port}
                aria-invalid={errors.port ? true : undefined}
                aria-describedby={describedBy}
                onChange={(e) => edit({ port: e.target.value })}
              />
            )}
          </Field>
          <Field id={`${id}-tls`} label={t('mail.tls')}>
            {(describedBy) => (
              <select
                id={`${id}-tls`}
                value={form.tls}
                aria-describedby={describedBy}
                onChange={(e) => edit({ tls: e.target.value as MailForm['tls'] })}
              >
                {TLS_MODES.map((mode) => (
                  <option key={mode} value={mode}>
                    {t(`mail.tls.${mode}`)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        {!readOnly && (
          <div className="form-grid">
            <Field
              id={`${id}-user`}
              label={t('mail.username')}
              hint={t('mail.usernameHint')}
              error={message('username')}
            >
              {(describedBy) => (
                <input
                  id={`${id}-user`}
                  value={form.username}
                  autoComplete="off"
                  aria-describedby={describedBy}
                  onChange={(e) => edit({ username: e.target.value })}
                />
              )}
            </Field>
            <Field
              id={`${id}-password`}
              label={t('mail.password')}
              hint={t(settings.password_set ? 'mail.passwordKeep' : 'mail.passwordNone')}
              error={message('password')}
            >
              {(describedBy) => (
                <input
                  id={`${id}-password`}
                  type="password"
                  value={form.password}
                  autoComplete="new-password"
                  aria-invalid={errors.password ? true : undefined}
                  aria-describedby={describedBy}
                  onChange={(e) => edit({ password: e.target.value, removePassword: false })}
                />
              )}
            </Field>
          </div>
        )}
        {!readOnly && settings.password_set && (
          <label className="check remove-password">
            <input
              type="checkbox"
              checked={form.removePassword}
              onChange={(e) => edit({ removePassword: e.target.checked, password: '' })}
            />
            {t('mail.removePassword')}
          </label>
        )}
        <div className="form-grid">
          <Field
            id={`${id}-from`}
            label={t('mail.fromAddress')}
            hint={hint('mail.fromAddressHint')}
            error={message('fromAddress')}
          >
            {(describedBy) => (
              <input
                id={`${id}-from`}
                type="email"
                value={form.fromAddress}
                aria-invalid={errors.fromAddress ? true : undefined}
                aria-describedby={describedBy}
                onChange={(e) => edit({ fromAddress: e.target.value })}
              />
            )}
          </Field>
          <Field
            id={`${id}-name`}
            label={t('mail.fromName')}
            hint={hint('mail.fromNameHint')}
            error={message('fromName')}
          >
            {(describedBy) => (
              <input
                id={`${id}-name`}
                value={form.fromName}
                aria-describedby={describedBy}
                onChange={(e) => edit({ fromName: e.target.value })}
              />
            )}
          </Field>
        </div>
      </fieldset>
      <ErrorNotice error={serverError} />
      {!readOnly && (
        <div className="form-actions">
          <button type="submit" className="button primary" disabled={busy || (!dirty && settings.source === 'account')}>
            {t('mail.save')}
          </button>
          {settings.source === 'account' && (
            <button type="button" className="button" disabled={busy} onClick={() => void remove()}>
              {t('mail.remove')}
            </button>
          )}
        </div>
      )}
    </form>
  );
}
