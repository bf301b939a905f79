/**
 * Structured JSON logs (pino): one JSON object per line on stdout, with ISO
 * times. A line about a request carries its request id (and its API key's
 * name) as fields, passed where the line is written: the access log
 * (`requestLog`), the app's `logError` (from the request's context), the
 * pool's lines about a job (the `logContext` of the request's
 * `Cancellation`). No AsyncLocalStorage carries it: on Node 20 an active
 * one runs promise hooks on every promise of the process, several per cent
 * of the main thread's time a request (docs/operations.md, "What a request
 * costs the main thread").
 *
 * What never goes to a log: API tokens (only key names), request bodies.
 */
import type { Server as NetServer } from 'node:net';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { PoolLog } from './pool.js';

export type { Logger } from 'pino';

/** What the log knows about the request being served: the fields its lines carry. */
export type RequestContext = {
  reqId: string;
  /** Name of the API key in use, once authenticated. */
  key?: string;
};

/** Options of `createLogger`. */
export interface LoggerOptions {
  /** Lowest level written; default `info`. */
  level?: string;
  /** Where lines go; default stdout, buffered (`stdoutDestination`). */
  destination?: DestinationStream;
}

/**
 * Bytes of log lines gathered before they are written to stdout in one
 * write: with the line that crosses it, a write stays under PIPE_BUF (4 KiB
 * on Linux), so that the lines of several processes on one pipe (the
 * fronts and the primary) never interleave within a write.
 */
export const LOG_BUFFER_BYTES = 3 * 1024;
/** Most milliseconds a log line waits in the buffer before it is written. */
export const LOG_FLUSH_MS = 100;
/** Most bytes of lines waiting for a stdout that does not keep up; lines past it are dropped rather than held (bounded memory). */
export const LOG_BACKLOG_BYTES = 16 * 1024 * 1024;

/**
 * Stdout as pino's destination, written asynchronously in writes of about
 * `LOG_BUFFER_BYTES` (one write per access log line cost the main thread a
 * system call per request), the buffer written at least every
 * `LOG_FLUSH_MS` and synchronously when the process exits (pino flushes
 * its destinations on `exit`, `process.exit` included). A process killed
 * outright (SIGKILL, out of memory) loses the last `LOG_FLUSH_MS` of lines.
 * A stdout that stops taking lines (a stuck pipe) holds at most
 * `LOG_BACKLOG_BYTES` of them; later lines are dropped until it drains,
 * where a synchronous write would have stopped the event loop.
 */
function stdoutDestination(): DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, maxLength: LOG_BACKLOG_BYTES, periodicFlush: LOG_FLUSH_MS });
}

/** The service's logger; see the module comment. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: 'solitaire-solver', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? stdoutDestination(),
  );
}

/** The pool's log interface on top of a pino logger (details as `err` or `detail`, a job's request's fields beside them). */
export function poolLog(logger: Logger): PoolLog {
  const fields = (detail: unknown, context: Readonly<Record<string, unknown>> | undefined) => {
    const own = detail === undefined ? {} : detail instanceof Error ? { err: detail } : { detail: String(detail) };
    return context === undefined ? own : { ...context, ...own };
  };
  return {
    warn: (message, detail, context) => logger.warn(fields(detail, context), message),
    error: (message, detail, context) => logger.error(fields(detail, context), message),
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
