import { Type } from 'typebox';
import { Nullable, StringEnum } from './common.js';

export const LoginBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
export const RefreshBody = Type.Object({ refresh_token: Type.String({ minLength: 1, maxLength: 200 }) });

export const TokenPairResponse = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'seconds until the access token expires' }),
});

export const BearerHeader = Type.Object({
  authorization: Type.Optional(
    Type.String({
      description: 'Bearer <access_token> of a login (admin or api_admin for account management; see docs/users.md)',
    }),
  ),
});

export const GenerateKeyBody = Type.Object(
  { mode: Type.Optional(StringEnum(['live', 'test'] as const, { description: 'default live' })) },
  { description: 'optional; no body means live' },
);

export const GeneratedKeyResponse = Type.Object({
  api_key: Type.String({ description: 'the full key: shown once, store it on your server' }),
  api_key_prefix: Type.String(),
  mode: StringEnum(['live', 'test'] as const),
  created_at: Type.String({ format: 'date-time' }),
});

export const KeyMetadataItem = Type.Object({
  api_key_prefix: Type.String(),
  mode: StringEnum(['live', 'test'] as const),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
});

export const KeyMetadataResponse = Type.Object({
  api_key_prefix: Nullable(
    Type.String({ description: 'prefix of the calling key; with a login token, of the live key (else the test key)' }),
  ),
  keys: Type.Array(KeyMetadataItem, { description: 'active keys of the account (with an API key: only that key)' }),
});
