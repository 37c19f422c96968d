/**
 * Every string the console shows, in English and Hindi: one catalogue made of one file per area (add an area:
 * a file exporting `en` and `hi: Record<keyof typeof en, string>`, spread into both objects below).
 * Placeholders in braces ({count}) are filled by t().
 */
import * as compose from './compose';
import * as envelopes from './envelopes';
import * as shell from './shell';
import * as templates from './templates';
import * as bulk from './bulk';
import * as developer from './developer';
import * as users from './users';
import * as mailSettings from './mail-settings';
import * as retention from './retention';

export const en = {
  ...shell.en,
  ...compose.en,
  ...envelopes.en,
  ...templates.en,
  ...bulk.en,
  ...developer.en,
  ...users.en,
  ...mailSettings.en,
  ...retention.en,
};
export type ConsoleStringKey = keyof typeof en;
export const hi: Record<ConsoleStringKey, string> = {
  ...shell.hi,
  ...compose.hi,
  ...envelopes.hi,
  ...templates.hi,
  ...bulk.hi,
  ...developer.hi,
  ...users.hi,
  ...mailSettings.hi,
  ...retention.hi,
};
