/**
 * An admin saves the account's own mail server (decision 38). Refused while the environment sets one
 * (MOHAR_SMTP_URL wins). The password is sealed with the installation's secret box; left out, the stored one is
 * kept (for the same host only); null removes it. Saved settings apply to the next mail, on every instance
 * (transport-settings.ts).
 */
import { MoharError } from '../../../common/errors.js';
import { deleteMailSettings, readStoredMailSettings, writeMailSettings } from '../../mail/mail-settings.js';
import { isMailAddress } from '../../mail/outbox.js';
import { addressPolicy, refuseLiteral } from '../../net/guarded-transport.js';
import { installationBox } from '../../seal/installation-box.js';
import type { MailTlsMode } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { readMailSettings, type MailSettingsView } from './mail-settings-view.js';

export interface MailSettingsInput {
  readonly host: string;
  readonly port: number;
  readonly tls: MailTlsMode;
  readonly username?: string | null;
  /** Absent or empty: keep the stored password; null: remove it. */
  readonly password?: string | null;
  readonly from_address: string;
  readonly from_name?: string | null;
}

function refuseWhileEnvironment(ctx: Pick<Context, 'config'>): void {
  if (ctx.config.smtpUrl !== undefined) {
    throw new MoharError(
      'mail_settings_locked',
      'the server environment sets the mail server (MOHAR_SMTP_URL), which wins over settings saved here; ask the operator to change or unset it',
    );
  }
}

function invalid(path: string, message: string): MoharError {
  return new MoharError('validation_failed', message, { errors: [{ path: `body${path}`, message }] });
}

function checkInput(ctx: Pick<Context, 'config'>, input: MailSettingsInput): void {
  const host = input.host.trim();
  // Names are checked when a mail is sent (they may resolve elsewhere later); an address can be judged now.
  const refused = refuseLiteral(host, addressPolicy(ctx.config.mailAllowPrivate));
  if (refused) {
    throw invalid(
      '/host',
      `${refused.message}; an operator can allow such mail servers with MOHAR_MAIL_ALLOW_PRIVATE=1`,
    );
  }
  if (!isMailAddress(input.from_address.trim())) {
    throw invalid('/from_address', `"${input.from_address}" is not one e-mail address`);
  }
}

/**
 * A kept password goes only to the server it was saved for: otherwise whoever may change the host (a stolen admin
 * session) could point it at a server of their own and receive the password the API never shows.
 */
async function refuseKeptPasswordForNewHost(ctx: Context, accountId: string, input: MailSettingsInput): Promise<void> {
  if (input.password === null || (input.password !== undefined && input.password !== '')) return;
  const stored = await readStoredMailSettings(ctx.db, accountId);
  if (stored && stored.password_sealed !== null && stored.host.toLowerCase() !== input.host.trim().toLowerCase()) {
    throw invalid(
      '/password',
      `the mail server changes from ${stored.host} to ${input.host.trim()}: type the password again (a saved password is only sent to the server it was saved for)`,
    );
  }
}

function emptyToNull(text: string | null | undefined): string | null {
  const trimmed = text?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

export async function saveMailSettings(
  ctx: Context,
  accountId: string,
  userId: string | null,
  input: MailSettingsInput,
): Promise<MailSettingsView> {
  refuseWhileEnvironment(ctx);
  checkInput(ctx, input);
  await refuseKeptPasswordForNewHost(ctx, accountId, input);
  await writeMailSettings(
    ctx.db,
    await installationBox(ctx.config),
    accountId,
    {
      host: input.host.trim(),
      port: input.port,
      tls: input.tls,
      username: emptyToNull(input.username),
      password: input.password === '' ? undefined : input.password,
      fromAddress: input.from_address.trim(),
      fromName: emptyToNull(input.from_name),
      updatedBy: userId,
    },
    iso(ctx.now()),
  );
  return readMailSettings(ctx, accountId);
}

/** Forgets the account's mail server: its mail is kept in the outbox again (unless the environment sets one). */
export async function removeMailSettings(ctx: Context, accountId: string): Promise<MailSettingsView> {
  refuseWhileEnvironment(ctx);
  await deleteMailSettings(ctx.db, accountId);
  return readMailSettings(ctx, accountId);
}
