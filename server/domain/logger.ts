/**
 * The domain's logger port: pino's `(object, message)` call, narrowed to the levels the domain uses. The server
 * hands in its Fastify logger (app.ts), whose redaction keeps secrets and link credentials out of every line; a
 * runtime without the HTTP app (the CLI's commands, tests that build a Context) logs nothing unless given one.
 */
export type LogFn = (object: object, message: string) => void;

export interface Logger {
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
}

const ignore: LogFn = () => {};

/** The default: no output (so nothing unredacted is ever written by a Context built without the server's logger). */
export const quietLogger: Logger = { info: ignore, warn: ignore, error: ignore };
