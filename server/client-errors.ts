/**
 * Faults of a connection below the app: what Node's HTTP server meets
 * before a request reaches @hono/node-server's listener (its `clientError`
 * event), and the errors that only mean the client went away.
 *
 * - Bytes that are not HTTP (a bad request line, a bad `Content-Length`,
 *   `Content-Length` with `Transfer-Encoding`, ...): 400 `invalid_request`
 *   naming Node's parser code (`HPE_INVALID_CONTENT_LENGTH`); headers over
 *   Node's maximum: 431 `headers_too_large`; chunk extensions over Node's
 *   maximum: 413 `payload_too_large`.
 * - A request not received in full within the server's `headersTimeout` /
 *   `requestTimeout` (`REQUEST_TIMEOUT_MS`): 408 `request_timeout`.
 *
 * Each as a whole HTTP answer with the API's JSON error body, the secure
 * headers and `Connection: close`, after which the socket is ended (Node's
 * own answers to these are a bare status line), when the socket can still
 * take it: writable, and no answer of an earlier request on it already
 * begun. Otherwise, and when the client reset the connection, the socket is
 * destroyed. None of these is a fault of the server: they are logged at
 * `info` (a client's fault) or `debug` (a client that went away).
 */
import { maxHeaderSize, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SolverError } from '../client-sdk/core/errors.js';
import type { Logger } from './logger.js';

/** Node's `code`s of a client that closed or reset its connection, or whose request stream was cut off. */
const CLIENT_GONE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * True for the errors that say the client went away (its connection closed
 * or reset mid-request: Node's `aborted` ECONNRESET on the request stream,
 * EPIPE, ECONNABORTED, a stream closed early), which are no fault of the
 * server. Such a code alone does not say whose connection it was (Redis's
 * can be reset too): callers check that the request's client is gone.
 */
export function isClientGoneError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  return (code !== undefined && CLIENT_GONE_CODES.has(code)) || err.message === 'aborted';
}

/** Options of `clientErrorListener`. */
export interface ClientErrorOptions {
  logger: Pick<Logger, 'info' | 'debug'>;
  /** Headers every answer of the app carries (the secure headers), added to these answers'. */
  headers?: Readonly<Record<string, string>>;
}

/** The answer to a fault of Node's `code` (its parser's `reason` when it has one), for `server`'s deadlines. */
function answerOf(code: string, reason: string | undefined, server: Pick<Server, 'headersTimeout' | 'requestTimeout'>): SolverError {
  // Node's one code for headers past headersTimeout and a request past requestTimeout
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new SolverError(
      'request_timeout',
      `the request was not received in full within ${server.requestTimeout} ms (its headers within ${server.headersTimeout} ms)`,
    );
  }
  if (code === 'HPE_HEADER_OVERFLOW') return new SolverError('headers_too_large', `the request headers are larger than the server takes (${maxHeaderSize} bytes)`);
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return new SolverError('payload_too_large', 'the chunk extensions of the request body are larger than the server takes');
  const why = reason ? `: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}` : '';
  return new SolverError('invalid_request', `the request is not valid HTTP (${code})${why}`);
}

/** The whole HTTP/1.1 answer of `err`: status line, headers (`headers` first), JSON body. */
function answerBytes(err: SolverError, headers: Readonly<Record<string, string>>): Buffer {
  const body = JSON.stringify(err.toJSON());
  const all: Record<string, string> = {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const lines = Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`);
  return Buffer.from(`HTTP/1.1 ${err.status} ${STATUS_CODES[err.status]}\r\n${lines.join('')}\r\n${body}`);
}

/**
 * The `clientError` listener of `server` (Node's HTTP server): see the
 * module comment. Attach with `server.on('clientError', clientErrorListener(server, options))`.
 */
export function clientErrorListener(
  server: Pick<Server, 'headersTimeout' | 'requestTimeout'>,
  options: ClientErrorOptions,
): (err: Error & { code?: string; reason?: string }, socket: Socket) => void {
  const headers = options.headers ?? {};
  return (err, socket) => {
    const code = err.code ?? 'unknown';
    // Node's own check: an answer already begun on this socket (a request before this one) must not be cut into.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (isClientGoneError(err)) {
      options.logger.debug({ code, clientClosed: true }, 'connection closed by the client before its request was read');
      socket.destroy();
      return;
    }
    if (!socket.writable || inFlight?.headersSent === true) {
      options.logger.debug({ cause: code }, 'request fault on a connection that can take no answer: connection closed');
      socket.destroy();
      return;
    }
    const answer = answerOf(code, err.reason, server);
    const what = answer.code === 'request_timeout' ? 'request not received in full in time' : 'request that is not valid HTTP';
    options.logger.info({ status: answer.status, code: answer.code, cause: code }, `${what}: answered, connection closed`);
    // ended, then closed once the answer is written: no half-open socket left to a client that keeps its end open
    socket.end(answerBytes(answer, headers), () => socket.destroy());
  };
}
