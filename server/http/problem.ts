/**
 * Turns every error into an RFC 9457 problem document (application/problem+json):
 * {type, title, status, detail, code, errors?}. The only place errors become HTTP.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MoharError, type ErrorItem } from '../../common/errors.js';
import { storageFullError } from '../domain/storage-full.js';
import { errorCodeInfo } from './error-codes.js';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: readonly ErrorItem[];
  [extra: string]: unknown;
}

export function problemFor(code: string, detail: string, errors?: readonly ErrorItem[]): Problem {
  const info = errorCodeInfo(code) ?? { status: 500, title: 'Internal error' };
  const problem: Problem = { type: `urn:mohar:problem:${code}`, title: info.title, status: info.status, detail, code };
  if (errors && errors.length > 0) problem.errors = errors;
  return problem;
}

/** Fastify's own errors (validation, content type, body size, multipart) as Mohar codes. */
function fromFastifyError(error: FastifyError): MoharError | undefined {
  if (error.validation) {
    const errors = error.validation.map((v) => {
      const missing = (v.params as { missingProperty?: string } | undefined)?.missingProperty;
      const path = `${v.instancePath}${missing ? `/${missing}` : ''}` || '/';
      return { path: `${error.validationContext ?? 'body'}${path}`, message: v.message ?? 'is not valid' };
    });
    const first = errors[0];
    return new MoharError('validation_failed', first ? `${first.path} ${first.message}` : 'the request is not valid', {
      errors,
    });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new MoharError('malformed_json', error.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new MoharError('unsupported_media_type', error.message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new MoharError('body_too_large', error.message);
    case 'FST_REQ_FILE_TOO_LARGE':
      return new MoharError(
        'file_too_large',
        'the uploaded file is larger than the configured limit (MOHAR_MAX_PDF_BYTES)',
      );
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
      return new MoharError('validation_failed', 'too many parts in the multipart request');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new MoharError('unsupported_media_type', 'expected multipart/form-data');
    default:
      if (error instanceof SyntaxError) return new MoharError('malformed_json', error.message);
      if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
        return new MoharError('bad_request', error.message);
      }
      return undefined;
  }
}

export function sendProblem(reply: FastifyReply, error: MoharError): FastifyReply {
  const problem = problemFor(error.code, error.message, error.errors);
  if (error.extra) Object.assign(problem, error.extra);
  if (error.retryAfterSeconds !== undefined) {
    reply.header('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  }
  return reply.code(problem.status).type('application/problem+json').send(problem);
}

/**
 * A full disk (ENOSPC, SQLITE_FULL, PostgreSQL 53100…) is 503 storage_full even when a layer on the way wrapped
 * it in a server error of its own; a client error (4xx) that merely has one among its causes stays what it is.
 */
function storageFullUnlessClientError(raw: unknown): MoharError | undefined {
  if (raw instanceof MoharError && (errorCodeInfo(raw.code)?.status ?? 500) < 500) return undefined;
  return storageFullError(raw);
}

export function installProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((raw: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const error = storageFullUnlessClientError(raw) ?? (raw instanceof MoharError ? raw : fromFastifyError(raw));
    if (error && errorCodeInfo(error.code)) {
      if (errorCodeInfo(error.code)!.status >= 500) {
        request.log.error({ err: raw, code: error.code }, error.message);
      }
      return sendProblem(reply, error);
    }
    request.log.error({ err: raw }, 'unhandled error');
    return sendProblem(
      reply,
      new MoharError('internal_error', 'something went wrong on our side; the error was logged'),
    );
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new MoharError('route_not_found', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
