/**
 * A template's default envelope settings, checked by the envelope create rules (issue 27, points 1 and 2). The
 * route schemas check the same rules first; the domain checks again because the CLI import and a merged PATCH
 * reach it too, and a definition that breaks them must never be stored (it would break every later read).
 */
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import { MAX_METADATA_BYTES, checkRedirectUrl } from '../envelopes/create-envelope.js';
import { ROUTING_ORDERS, type RoutingOrder } from '../envelopes/model.js';
import { checkReminderSettings } from '../workflow/reminder-settings.js';
import { MAX_RETENTION_DAYS, isRetentionDays } from '../retention/policy.js';
import type { SettingsInput, TemplateSettings } from './model.js';

/** The envelope create limits (schemas/envelopes.ts). */
const MAX_MESSAGE_LENGTH = 10_000;
const MAX_EXPIRE_IN_DAYS = 3650;
const MAX_REDIRECT_URL_LENGTH = 2048;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function memberErrors(input: Record<string, unknown>): ErrorItem[] {
  const errors: ErrorItem[] = [];
  const problem = (member: string, message: string) => errors.push({ path: `/settings/${member}`, message });
  const { message, routing_order, expire_in_days, redirect_url, metadata, reminders, retention_days } = input;
  if (message != null && (typeof message !== 'string' || message.length > MAX_MESSAGE_LENGTH)) {
    problem('message', `must be a string of at most ${MAX_MESSAGE_LENGTH} characters, or null`);
  }
  if (routing_order != null && !(ROUTING_ORDERS as readonly unknown[]).includes(routing_order)) {
    problem('routing_order', `must be one of ${ROUTING_ORDERS.join(', ')}`);
  }
  if (
    expire_in_days != null &&
    !(
      Number.isInteger(expire_in_days) &&
      (expire_in_days as number) >= 1 &&
      (expire_in_days as number) <= MAX_EXPIRE_IN_DAYS
    )
  ) {
    problem('expire_in_days', `must be a whole number of days from 1 to ${MAX_EXPIRE_IN_DAYS}, or null`);
  }
  if (redirect_url != null && (typeof redirect_url !== 'string' || redirect_url.length > MAX_REDIRECT_URL_LENGTH)) {
    problem('redirect_url', `must be an http(s) URL of at most ${MAX_REDIRECT_URL_LENGTH} characters, or null`);
  }
  if (metadata != null && !isObject(metadata)) problem('metadata', 'must be a JSON object, or null');
  if (reminders != null && !isObject(reminders)) problem('reminders', 'must be an object, or null');
  if (retention_days != null && !isRetentionDays(retention_days)) {
    problem('retention_days', `must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null`);
  }
  return errors;
}

export function checkSettings(input: SettingsInput | null | undefined): TemplateSettings {
  const given: unknown = input ?? {};
  if (!isObject(given)) {
    throw new MoharError('validation_failed', '/settings must be an object', {
      errors: [{ path: '/settings', message: 'must be an object' }],
    });
  }
  const errors = memberErrors(given);
  if (errors.length > 0) {
    throw new MoharError('validation_failed', errors.map((e) => `${e.path} ${e.message}`).join('; '), { errors });
  }
  // Only the known members are kept: an unknown one is ignored, like everywhere in the API (docs/api.md).
  const settings: TemplateSettings = {
    message: (given.message as string | null | undefined) ?? null,
    routing_order: (given.routing_order as RoutingOrder | null | undefined) ?? 'sequential',
    expire_in_days: (given.expire_in_days as number | null | undefined) ?? null,
    redirect_url: (given.redirect_url as string | null | undefined) ?? null,
    metadata: (given.metadata as Record<string, unknown> | null | undefined) ?? null,
    ...(isObject(given.reminders) ? { reminders: checkReminderSettings(given.reminders, '/settings/reminders') } : {}),
    // Kept only when set, so the definitions (and change summaries) of templates without it stay as they were.
    ...(given.retention_days != null ? { retention_days: given.retention_days as number } : {}),
  };
  checkRedirectUrl(settings.redirect_url ?? undefined, '/settings/redirect_url');
  if (settings.metadata !== null && Buffer.byteLength(JSON.stringify(settings.metadata)) > MAX_METADATA_BYTES) {
    throw new MoharError('validation_failed', `/settings/metadata: larger than ${MAX_METADATA_BYTES} bytes`, {
      errors: [{ path: '/settings/metadata', message: `larger than ${MAX_METADATA_BYTES} bytes` }],
    });
  }
  return settings;
}
