/** The office console's login: refresh token in an HttpOnly cookie, access token in the answer. */
import { Type } from 'typebox';

export const ConsoleUser = Type.Object({
  email: Type.String(),
  role: Type.String({ description: 'api_admin today; admin, sender with the users of the account' }),
  account_id: Type.String({ format: 'uuid' }),
  account_name: Type.String(),
});

export const ConsoleSessionResponse = Type.Object(
  {
    access_token: Type.String({
      description: 'Authorization: Bearer for the envelope and account APIs; keep it in memory only',
    }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'seconds until the access token expires; refresh with the cookie' }),
    user: ConsoleUser,
  },
  { description: 'The refresh token is in the Set-Cookie header (HttpOnly, SameSite=Strict), never in the body.' },
);

export const ConsoleHeader = Type.Object({
  'x-mohar-console': Type.Optional(
    Type.String({
      description:
        'required: "1". A page of another site cannot send it without a CORS preflight, which this server never grants',
    }),
  ),
});
