/**
 * The one place where PKCS#11 return values (CKR_*) and module-load failures become MoharError codes.
 * Every other file in native/ catches, gathers context (e.g. the token flags after a failed C_Login) and
 * calls translatePkcs11Error(). Messages never contain PINs: callers never put one in the context.
 */
import pkcs11js from 'pkcs11js';
import { MoharError } from '../common/errors.js';

export type NativeErrorCode =
  | 'module_load_failed'
  | 'token_not_present'
  | 'token_removed'
  | 'pin_incorrect'
  | 'pin_locked'
  | 'pin_expired'
  | 'key_not_found'
  | 'mechanism_not_supported'
  | 'certificate_expired'
  | 'pkcs11_error';

export interface Pkcs11ErrorContext {
  /** The PKCS#11 function (C_Login, C_SignInit, ...) or 'load' for loading the module file. */
  readonly operation: string;
  readonly modulePath?: string;
  /** Token label or serial, for messages. */
  readonly token?: string;
  /** CK_TOKEN_INFO.flags read right after the failure (pin_incorrect reports count-low / final-try from it). */
  readonly tokenFlags?: number;
}

const CKR_NAMES: ReadonlyMap<number, string> = (() => {
  const names = new Map<number, string>();
  for (const [key, value] of Object.entries(pkcs11js as unknown as Record<string, unknown>)) {
    if (key.startsWith('CKR_') && typeof value === 'number' && !names.has(value)) names.set(value, key);
  }
  return names;
})();

/** CKR_PIN_INCORRECT for 0xa0; "CKR_0x..." for values pkcs11js does not name (vendor-defined). */
export function ckrName(code: number): string {
  return CKR_NAMES.get(code) ?? `CKR_0x${code.toString(16).padStart(8, '0')}`;
}

/** A PKCS#11 return value as the Error pkcs11js would throw (for conditions read from token flags). */
export function pkcs11Failure(code: number, operation: string): Error {
  return new pkcs11js.Pkcs11Error(`${ckrName(code)}:${code}`, code, operation);
}

/** The CKR value of a pkcs11js error, or undefined for anything else. */
export function ckrOf(error: unknown): number | undefined {
  if (error instanceof pkcs11js.Pkcs11Error && typeof error.code === 'number') return error.code;
  if (error instanceof Error && error.name === 'Pkcs11Error') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

function pinFlags(flags: number | undefined): { pinCountLow: boolean; pinFinalTry: boolean } {
  const f = flags ?? 0;
  return {
    pinCountLow: (f & pkcs11js.CKF_USER_PIN_COUNT_LOW) !== 0,
    pinFinalTry: (f & pkcs11js.CKF_USER_PIN_FINAL_TRY) !== 0,
  };
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Turns a pkcs11js error (or a module-load failure when context.operation is 'load') into a MoharError.
 * A MoharError passes through unchanged.
 */
export function translatePkcs11Error(error: unknown, context: Pkcs11ErrorContext): MoharError {
  if (error instanceof MoharError) return error;
  const where = context.token ? ` (token ${context.token})` : '';

  if (context.operation === 'load') {
    const path = context.modulePath ?? '(unknown path)';
    return new MoharError('module_load_failed', `cannot load PKCS#11 module ${path}: ${errorText(error)}`, {
      extra: { modulePath: path, osError: errorText(error) },
      cause: error,
    });
  }

  const code = ckrOf(error);
  if (code === undefined) {
    return new MoharError('pkcs11_error', `${context.operation} failed${where}: ${errorText(error)}`, {
      extra: { operation: context.operation },
      cause: error,
    });
  }
  const name = ckrName(code);
  const extra = { operation: context.operation, ckr: name };
  switch (code) {
    case pkcs11js.CKR_PIN_INCORRECT:
    case pkcs11js.CKR_PIN_INVALID:
    case pkcs11js.CKR_PIN_LEN_RANGE:
      return new MoharError('pin_incorrect', `the PIN is incorrect${where} (${name})`, {
        extra: { ...extra, ...pinFlags(context.tokenFlags) },
        cause: error,
      });
    case pkcs11js.CKR_PIN_LOCKED:
      return new MoharError(
        'pin_locked',
        `the PIN is locked${where}: unblock it with the token's SO PIN / vendor tool`,
        { extra, cause: error },
      );
    case pkcs11js.CKR_PIN_EXPIRED:
      return new MoharError('pin_expired', `the PIN has expired${where}: change it with the token's vendor tool`, {
        extra,
        cause: error,
      });
    case pkcs11js.CKR_TOKEN_NOT_PRESENT:
    case pkcs11js.CKR_TOKEN_NOT_RECOGNIZED:
    case pkcs11js.CKR_SLOT_ID_INVALID:
      return new MoharError('token_not_present', `no token present${where} (${name} in ${context.operation})`, {
        extra,
        cause: error,
      });
    case pkcs11js.CKR_DEVICE_REMOVED:
    case pkcs11js.CKR_SESSION_HANDLE_INVALID:
    case pkcs11js.CKR_SESSION_CLOSED:
      return new MoharError(
        'token_removed',
        `the token was removed${where} (${name} in ${context.operation}): insert it and try again`,
        { extra, cause: error },
      );
    case pkcs11js.CKR_KEY_HANDLE_INVALID:
      return new MoharError(
        'key_not_found',
        `the key is no longer on the token${where} (${name} in ${context.operation})`,
        { extra, cause: error },
      );
    case pkcs11js.CKR_MECHANISM_INVALID:
    case pkcs11js.CKR_MECHANISM_PARAM_INVALID:
      return new MoharError(
        'mechanism_not_supported',
        `the token does not support this signature mechanism${where} (${name} in ${context.operation})`,
        { extra, cause: error },
      );
    default:
      return new MoharError('pkcs11_error', `${context.operation} failed${where}: ${name}`, { extra, cause: error });
  }
}
