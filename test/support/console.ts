/**
 * The office console in Chromium: log in through its login form (as a person would) and wait for the
 * logged-in frame.
 *
 *   await logInToConsole(page, origin, t.account);        // lands on /app/envelopes (or `path`)
 */
import type { Page } from 'playwright-core';

export interface ConsoleLogin {
  readonly email: string;
  readonly password: string;
}

/**
 * Opens `${origin}/app${path}`, fills the login form and waits until the logged-in frame shows (its header; on a
 * phone the "Log out" button is behind the Menu button).
 */
export async function logInToConsole(
  page: Page,
  origin: string,
  account: ConsoleLogin,
  path = '/envelopes',
): Promise<void> {
  await page.goto(`${origin}/app${path}`);
  await page.getByLabel('E-mail').fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.locator('header.console-header').waitFor();
}

/**
 * Sends the draft open in compose as a person would: Send, then "Send now" in the confirmation that lists the
 * recipients and documents. Returns once the dialog has closed (the page then goes to the envelope).
 */
export async function sendFromCompose(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Send this envelope now?' });
  await dialog.getByRole('button', { name: 'Send now' }).click();
  await dialog.waitFor({ state: 'detached' });
}
