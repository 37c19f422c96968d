/** Adds or edits one recipient: name, e-mail, role and how they sign (the methods the role allows). */
import { useId, useState, type FormEvent } from 'react';
import { useT } from '../../i18n';
import { METHODS, ROLES, type Method, type RecipientInput, type Role } from './compose-api';

interface Props {
  initial?: RecipientInput;
  submitLabel: string;
  busy: boolean;
  onSubmit(input: RecipientInput): void;
  onCancel?: () => void;
}

/** A signer signs (electronic, Aadhaar or USB DSC); the others only review or sign electronically. */
export const methodsFor = (role: Role): readonly Method[] =>
  role === 'signer' ? METHODS.filter((m) => m !== 'review') : ['review', 'electronic'];

export function RecipientForm({ initial, submitLabel, busy, onSubmit, onCancel }: Props) {
  const { t } = useT();
  const id = useId();
  const [name, setName] = useState(initial?.name ?? '');
  const [email, setEmail] = useState(initial?.email ?? '');
  const [role, setRole] = useState<Role>(initial?.role ?? 'signer');
  const [method, setMethod] = useState<Method>(initial?.signature_method ?? 'electronic');
  const methods = methodsFor(role);

  const chooseRole = (next: Role) => {
    setRole(next);
    // Each role starts from its own default (a signer signs electronically, the others review); a signer keeps a chosen
    // method.
    if (next !== 'signer' || !methodsFor(next).includes(method)) setMethod(methodsFor(next)[0]!);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({ name: name.trim(), email: email.trim(), role, signature_method: method });
    if (!initial) {
      setName('');
      setEmail('');
    }
  };

  return (
    <form className="recipient-form form-grid" onSubmit={submit}>
      <div className="form-field">
        <label htmlFor={`${id}-name`}>{t('compose.recipients.name')}</label>
        <input
          id={`${id}-name`}
          required
          maxLength={200}
          autoComplete="off"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <div className="form-field">
        <label htmlFor={`${id}-email`}>{t('compose.recipients.email')}</label>
        <input
          id={`${id}-email`}
          type="email"
          required
          maxLength={320}
          autoComplete="off"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </div>
      <div className="form-field">
        <label htmlFor={`${id}-role`}>{t('compose.recipients.role')}</label>
        <select id={`${id}-role`} value={role} onChange={(e) => chooseRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`compose.role.${r}`)}
            </option>
          ))}
        </select>
      </div>
      {role !== 'cc' && (
        <div className="form-field">
          <label htmlFor={`${id}-method`}>{t('compose.recipients.method')}</label>
          <select id={`${id}-method`} value={method} onChange={(e) => setMethod(e.target.value as Method)}>
            {methods.map((m) => (
              <option key={m} value={m}>
                {t(`compose.method.${m}`)}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="form-actions recipient-form-actions">
        <button type="submit" className="button primary" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            {t('compose.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
