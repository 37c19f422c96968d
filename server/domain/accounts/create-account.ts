/** An account and its api_admin user, the login that manages keys and webhooks. */
import { randomUUID } from 'node:crypto';
import { MoharError } from '../../../common/errors.js';
import { isUniqueViolation } from '../../storage/connect.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { hashPassword } from '../auth/passwords.js';

export interface NewAccount {
  readonly name: string;
  readonly email: string;
  readonly password: string;
  readonly testMode?: boolean;
}

export interface CreatedAccount {
  readonly accountId: string;
  readonly userId: string;
  readonly email: string;
}

export const MIN_PASSWORD_LENGTH = 12;

export async function createAccount(ctx: Context, input: NewAccount): Promise<CreatedAccount> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) {
    throw new MoharError('validation_failed', `not an e-mail address: ${input.email}`);
  }
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new MoharError('validation_failed', `the password must be at least ${MIN_PASSWORD_LENGTH} characters long`);
  }
  if (input.name.trim() === '') throw new MoharError('validation_failed', 'the account name must not be empty');
  const passwordHash = await hashPassword(input.password);
  const accountId = randomUUID();
  const userId = randomUUID();
  const at = iso(ctx.now());
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('accounts')
        .values({
          id: accountId,
          name: input.name.trim(),
          test_mode: input.testMode ? 1 : 0,
          suspended: 0,
          monthly_call_limit: null,
          settings: '{}',
          created_at: at,
        })
        .execute();
      await trx
        .insertInto('users')
        .values({
          id: userId,
          account_id: accountId,
          email,
          password_hash: passwordHash,
          role: 'api_admin',
          locked_until: null,
          created_at: at,
        })
        .execute();
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new MoharError('validation_failed', `a user with e-mail ${email} exists already`);
    }
    throw error;
  }
  return { accountId, userId, email };
}
