/** Schemas of the Aadhaar eSign routes of the signer API (server/routes/v1/aadhaar.ts). */
import { Type } from 'typebox';
import { ESIGN_FAILURE_REASONS } from '../../domain/aadhaar/esp-errors.js';
import { Nullable, StringEnum } from './common.js';

export const EsignStartBody = Type.Object({
  consent: Type.Boolean({ description: 'the consent statement was accepted (required: true)' }),
  fields: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 10_000 }), Type.Boolean()]), {
      description:
        "values by field_id: the recipient's own fields that they fill, as for POST {api_base}/signing/{token}",
    }),
  ),
});

export const EsignStartResponse = Type.Object({
  txn: Type.String({ description: 'the eSign transaction id (txn of the Esign request)' }),
  expires_at: Type.String({ format: 'date-time', description: 'the ESP must answer before this (30 minutes)' }),
  esp_url: Type.String({ description: "the eSign service provider's form URL" }),
  form: Type.Object(
    {
      eSignRequest: Type.String({
        description: 'the Esign 2.1 request XML, signed by the ASP key (enveloped XML-DSig)',
      }),
      aspTxnID: Type.String(),
      'Content-Type': Type.Literal('application/xml'),
    },
    { description: "post these fields (application/x-www-form-urlencoded) from the signer's browser to esp_url" },
  ),
  autopost_url: Type.String({
    description: "a page of this server that posts the form to the ESP by itself: open it in the signer's browser",
  }),
});

export const EsignFailure = Type.Object({
  reason: StringEnum(ESIGN_FAILURE_REASONS, { description: 'what went wrong, for the page to say in words' }),
  code: Type.String({
    description: 'the Mohar error code (esign_failed, esign_response_invalid, esign_txn_invalid, esign_xml_invalid…)',
  }),
  esp_code: Nullable(Type.String({ description: "the ESP's errCode when it refused" })),
  message: Type.String(),
});

export const EsignStatusResponse = Type.Object({
  state: StringEnum(['none', 'pending', 'signed', 'failed'] as const, {
    description:
      'none: no open transaction; pending: the ESP has not answered (or no status URL is configured); signed: the recovered answer signed; failed: see failure',
  }),
  recipient_status: Nullable(Type.String()),
  envelope_status: Nullable(Type.String()),
  failure: Nullable(EsignFailure),
});
