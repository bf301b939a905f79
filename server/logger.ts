/**
 * Structured JSON logs (pino): one JSON object per line on stdout, with ISO
 * times, and the request id of the request being served on every line
 * written while serving it.
 *
 * The request id travels in an AsyncLocalStorage (`withRequestContext`), read
 * by pino's `mixin`: lines written deep inside a request (the pool's error
 * reports, the app's `logError`) carry it without passing a logger around.
 *
 * What never goes to a log: API tokens (only key names), request bodies.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server as NetServer } from 'node:net';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { PoolLog } from './pool.js';

export type { Logger } from 'pino';

/** What the log knows about the request being served. */
export interface RequestContext {
  reqId: string;
  /** Name of the API key in use, once authenticated. */
  key?: string;
}

const requestContext = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `ctx` as the current request's context (for log lines written inside it). */
export function withRequestContext<T>(ctx: RequestContext, fn: () => T): T {
  return requestContext.run(ctx, fn);
}

/** The current request's context, if any. */
export function currentRequest(): RequestContext | undefined {
  return requestContext.getStore();
}

/** Options of `createLogger`. */
export interface LoggerOptions {
  /** Lowest level written; default `info`. */
  level?: string;
  /** Where lines go; default stdout, buffered (`stdoutDestination`). */
  destination?: DestinationStream;
}

/** Bytes of log lines gathered before they are written to stdout in one write. */
export const LOG_BUFFER_BYTES = 8 * 1024;
/** Most milliseconds a log line waits in the buffer before it is written. */
export const LOG_FLUSH_MS = 100;

/**
 * Stdout as pino's destination, written asynchronously in writes of up to
 * `LOG_BUFFER_BYTES` (one write per access log line cost the main thread a
 * system call per request), the buffer written at least every
 * `LOG_FLUSH_MS` and synchronously when the process exits (pino flushes
 * its destinations on `exit`, `process.exit` included). A process killed
 * outright (SIGKILL, out of memory) loses the last `LOG_FLUSH_MS` of lines.
 */
function stdoutDestination(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  setInterval(() => destination.flush(), LOG_FLUSH_MS).unref();
  return destination;
}

/** The service's logger; see the module comment. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: 'solitaire-solver', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const ctx = requestContext.getStore();
        return ctx ? { reqId: ctx.reqId, ...(ctx.key ? { key: ctx.key } : {}) } : {};
      },
    },
    options.destination ?? stdoutDestination(),
  );
}

/** The pool's log interface on top of a pino logger (details as `err` or `detail`). */
export function poolLog(logger: Logger): PoolLog {
  const fields = (detail: unknown) =>
    detail === undefined ? {} : detail instanceof Error ? { err: detail } : { detail: String(detail) };
  return {
    warn: (message, detail) => logger.warn(fields(detail), message),
    error: (message, detail) => logger.error(fields(detail), message),
  };
}

/**
 * Logs what would otherwise end the process silently: an uncaught exception
 * is logged as fatal, flushed, and the process exits 1; an unhandled
 * rejection is logged as an error. Used by the service and the batch worker.
 */
/**
 * Ends a start that failed on the environment rather than on a value's
 * format (the port taken, the batch database or Redis out of reach): one
 * fatal line naming the variable (`what`) and the system's reason, no stack,
 * logs flushed, exit 1. Used by the service and the batch worker.
 */
export function exitOnStartupFault(logger: Logger, what: string, err: unknown): never {
  const reason = err instanceof Error ? `${'code' in err ? `${String(err.code)}: ` : ''}${err.message}` : String(err);
  logger.fatal({ reason }, what);
  logger.flush();
  process.exit(1);
}

/**
 * Ends the start through {@link exitOnStartupFault} when `server` cannot
 * listen (`what` names the variables, e.g. "PORT 3000 on HOST 0.0.0.0");
 * errors after it listens are left to their own handlers.
 */
export function exitOnListenFault(server: NetServer, logger: Logger, what: string): void {
  const onError = (err: Error) => exitOnStartupFault(logger, `${what}: cannot listen`, err);
  server.once('error', onError);
  server.once('listening', () => server.off('error', onError));
}

export function logProcessFaults(logger: Logger): void {
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception: exiting');
    logger.flush();
    process.exit(1);
  });
  process.on('unhandledRejection', (err) => {
    logger.error({ err }, 'unhandled promise rejection');
  });
}
