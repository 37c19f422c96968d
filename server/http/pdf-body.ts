/**
 * Raw `application/pdf` request bodies, for the routes that take a PDF and no others: a scope calls
 * acceptPdfBodies and registers its PDF routes inside it (Fastify content-type parsers are encapsulated),
 * so every other route answers 415 to a PDF body without reading it. An over-size upload is refused from
 * its Content-Length before the body is read (file_too_large).
 */
import type { FastifyInstance } from 'fastify';
import { MoharError } from '../../common/errors.js';
import { declaredTooLarge } from './token-limits.js';

export function acceptPdfBodies(scope: FastifyInstance, maxBytes: number): void {
  scope.addContentTypeParser('application/pdf', { parseAs: 'buffer', bodyLimit: maxBytes }, (_request, body, done) =>
    done(null, body),
  );
  scope.addHook('onRequest', async (request) => {
    const declared = declaredTooLarge(request, maxBytes);
    if (declared !== undefined) {
      throw new MoharError(
        'file_too_large',
        `the PDF is ${declared} bytes; at most ${maxBytes} bytes are accepted (MOHAR_MAX_PDF_BYTES)`,
      );
    }
  });
}
