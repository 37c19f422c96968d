/**
 * Operators → Mail server ({legacy_base}/mail/settings/): what the server answers, the form's fields and the
 * checks made before Save (the server checks again; its answer is the rule).
 */
import type { ConsoleStringKey } from '../../strings';

export const TLS_MODES = ['starttls', 'tls', 'none'] as const;
export type TlsMode = (typeof TLS_MODES)[number];

export interface MailSettings {
  source: 'environment' | 'account' | 'none';
  host: string | null;
  port: number | null;
  tls: TlsMode | null;
  username: string | null;
  password_set: boolean;
  from_address: string | null;
  from_name: string | null;
  updated_at: string | null;
}

export interface TestMailResult {
  sent: boolean;
  source: 'environment' | 'account';
  server: string;
  detail: string;
}

/** The form as typed: text everywhere; `password` empty means "keep the saved one". */
export interface MailForm {
  host: string;
  port: string;
  tls: TlsMode;
  username: string;
  password: string;
  removePassword: boolean;
  fromAddress: string;
  fromName: string;
}

export type FormErrors = Partial<
  Record<'host' | 'port' | 'fromAddress' | 'fromName' | 'username' | 'password', ConsoleStringKey>
>;

export function formOf(settings: MailSettings): MailForm {
  return {
    host: settings.host ?? '',
    port: settings.port === null ? '587' : String(settings.port),
    tls: settings.tls ?? 'starttls',
    username: settings.username ?? '',
    password: '',
    removePassword: false,
    fromAddress: settings.from_address ?? '',
    fromName: settings.from_name ?? '',
  };
}

const HOST = /^[A-Za-z0-9._:[\]-]+$/;
const ADDRESS = /^[^\s@<>(),;:"\\[\]]+@[^\s@<>(),;:"\\[\]]+$/;

export function checkForm(form: MailForm): FormErrors {
  const errors: FormErrors = {};
  const host = form.host.trim();
  if (host === '' || !HOST.test(host) || host.length > 253) errors.host = 'mail.error.host';
  const port = Number(form.port.trim());
  if (!/^\d+$/.test(form.port.trim()) || port < 1 || port > 65535) errors.port = 'mail.error.port';
  if (!ADDRESS.test(form.fromAddress.trim())) errors.fromAddress = 'mail.error.fromAddress';
  if (/[\r\n]/.test(form.fromName)) errors.fromName = 'mail.error.oneLine';
  if (/[\r\n]/.test(form.username)) errors.username = 'mail.error.oneLine';
  return errors;
}

/** The PUT body: the password only when typed (replace) or removed (null); left out it is kept. */
export function bodyOf(form: MailForm): Record<string, unknown> {
  return {
    host: form.host.trim(),
    port: Number(form.port.trim()),
    tls: form.tls,
    username: form.username.trim() === '' ? null : form.username.trim(),
    ...(form.password !== '' ? { password: form.password } : form.removePassword ? { password: null } : {}),
    from_address: form.fromAddress.trim(),
    from_name: form.fromName.trim() === '' ? null : form.fromName.trim(),
  };
}

export function sameForm(a: MailForm, b: MailForm): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
