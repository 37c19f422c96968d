/**
 * The roles of a template (slots filled with people when it is used): key, label, kind, signature method and
 * routing step. Keys of roles that already exist are fixed, because fields and integrations refer to them.
 */
import { useT } from '../../i18n';
import { ROLE_KINDS, SIGNATURE_METHODS, type RoleKind, type SignatureMethod, type TemplateRole } from './model';

interface Props {
  roles: TemplateRole[];
  onChange(roles: TemplateRole[]): void;
  /** Keys that may not be renamed (roles of the saved template). */
  fixedKeys?: ReadonlySet<string>;
  /** Problems by role index (from the server's errors[].path /roles/N/...). */
  errors?: ReadonlyMap<number, string>;
}

function nextKey(roles: readonly TemplateRole[]): string {
  for (let n = roles.length + 1; ; n++) {
    const key = `signer_${n}`;
    if (!roles.some((r) => r.role_key === key)) return key;
  }
}

export function RolesEditor({ roles, onChange, fixedKeys, errors }: Props) {
  const { t } = useT();
  const update = (index: number, change: Partial<TemplateRole>) =>
    onChange(roles.map((r, i) => (i === index ? { ...r, ...change } : r)));
  const add = () =>
    onChange([
      ...roles,
      {
        role_key: nextKey(roles),
        label: '',
        role: 'signer',
        signature_method: 'electronic',
        sequence: roles.length + 1,
      },
    ]);
  return (
    <fieldset className="roles-editor">
      <legend>{t('templates.roles.title')}</legend>
      <p className="hint">{t('templates.roles.hint')}</p>
      {roles.length === 0 && <p className="muted">{t('templates.roles.none')}</p>}
      <ol className="roles-list">
        {roles.map((role, index) => {
          const id = `role-${index}`;
          const error = errors?.get(index);
          return (
            <li key={index} className="role-row" aria-labelledby={`${id}-title`}>
              <h3 id={`${id}-title`} className="role-title">
                {t('templates.roles.number', { n: index + 1 })}
              </h3>
              <div className="form-grid">
                <div className="form-field">
                  <label htmlFor={`${id}-key`}>{t('templates.roles.key')}</label>
                  <input
                    id={`${id}-key`}
                    value={role.role_key}
                    readOnly={fixedKeys?.has(role.role_key)}
                    required
                    pattern="[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}"
                    onChange={(e) => update(index, { role_key: e.target.value })}
                  />
                </div>
                <div className="form-field">
                  <label htmlFor={`${id}-label`}>{t('templates.roles.label')}</label>
                  <input
                    id={`${id}-label`}
                    value={role.label ?? ''}
                    onChange={(e) => update(index, { label: e.target.value })}
                  />
                </div>
                <div className="form-field">
                  <label htmlFor={`${id}-role`}>{t('templates.roles.kind')}</label>
                  <select
                    id={`${id}-role`}
                    value={role.role}
                    onChange={(e) => {
                      const kind = e.target.value as RoleKind;
                      update(index, {
                        role: kind,
                        signature_method:
                          kind === 'signer'
                            ? role.signature_method === 'review'
                              ? 'electronic'
                              : role.signature_method
                            : 'review',
                      });
                    }}
                  >
                    {ROLE_KINDS.map((k) => (
                      <option key={k} value={k}>
                        {t(`templates.role.${k}`)}
                      </option>
                    ))}
                  </select>
                </div>
                <div className="form-field">
                  <label htmlFor={`${id}-method`}>{t('templates.roles.method')}</label>
                  <select
                    id={`${id}-method`}
                    value={role.signature_method}
                    onChange={(e) => update(index, { signature_method: e.target.value as SignatureMethod })}
                  >
                    {SIGNATURE_METHODS.filter((m) => (role.role === 'signer' ? m !== 'review' : m === 'review')).map(
                      (m) => (
                        <option key={m} value={m}>
                          {t(`templates.method.${m}`)}
                        </option>
                      ),
                    )}
                  </select>
                </div>
                <div className="form-field">
                  <label htmlFor={`${id}-sequence`}>{t('templates.roles.sequence')}</label>
                  <input
                    id={`${id}-sequence`}
                    type="number"
                    min={1}
                    max={1000}
                    value={role.sequence}
                    onChange={(e) => update(index, { sequence: Math.max(1, Number(e.target.value) || 1) })}
                  />
                </div>
              </div>
              {error && (
                <p className="field-error" role="alert">
                  {error}
                </p>
              )}
              <button
                type="button"
                className="button small danger-outline"
                onClick={() => onChange(roles.filter((_, i) => i !== index))}
              >
                {t('templates.roles.remove', { name: role.label || role.role_key })}
              </button>
            </li>
          );
        })}
      </ol>
      <button type="button" className="button small" onClick={add}>
        {t('templates.roles.add')}
      </button>
    </fieldset>
  );
}

/** The server's problems about roles (errors[].path "/roles/2/…" or "/template/roles/2/…"), by role index. */
export function roleErrors(problem: Record<string, unknown> | undefined): Map<number, string> {
  const map = new Map<number, string>();
  const items = Array.isArray(problem?.errors) ? (problem.errors as { path?: string; message?: string }[]) : [];
  for (const item of items) {
    const match = /\/roles\/(\d+)/.exec(item.path ?? '');
    if (match && item.message) map.set(Number(match[1]), item.message);
  }
  return map;
}
