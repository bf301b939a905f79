/**
 * Faults below the app (server/client-errors.ts), on fake sockets: what is
 * written to a socket Node's server gave up on, and when nothing is. The
 * real server's answers are in tests/integration/server-timeouts.test.ts.
 */
import { maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ErrorResponseSchema } from '../../client-sdk/api/schemas.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { clientErrorListener, isClientGoneError } from '../../server/client-errors.js';

/** A socket that records what is written to it and whether it was ended or destroyed. */
function fakeSocket(state: { writable?: boolean; headersSent?: boolean } = {}) {
  const socket = {
    written: '',
    ended: false,
    destroyed: false,
    writable: state.writable ?? true,
    _httpMessage: state.headersSent === undefined ? null : { headersSent: state.headersSent },
    end(data: Buffer, done: () => void) {
      this.written += data.toString();
      this.ended = true;
      done();
    },
    destroy() {
      this.destroyed = true;
    },
  };
  return socket;
}

/** A `clientErrorListener` of a server with deadlines of 1 s, and the levels and messages it logged. */
function listener() {
  const logged: { level: string; msg: string }[] = [];
  const logger = {
    info: (_fields: unknown, msg: string) => void logged.push({ level: 'info', msg }),
    debug: (_fields: unknown, msg: string) => void logged.push({ level: 'debug', msg }),
  };
  const listen = clientErrorListener({ headersTimeout: 1000, requestTimeout: 1000 }, { logger: logger as never, headers: { 'x-content-type-options': 'nosniff' } });
  return { logged, fire: (code: string, socket: ReturnType<typeof fakeSocket>, reason?: string) => listen(Object.assign(new Error(code), { code, reason }), socket as unknown as Socket) };
}

/** The status and error body of what was written. */
function answerOf(written: string) {
  const [head, body] = written.split('\r\n\r\n');
  expect(head).toMatch(/\r\nConnection: close(\r\n|$)/);
  expect(head).toMatch(/\r\nx-content-type-options: nosniff(\r\n|$)/);
  return { status: Number(head.slice(9, 12)), error: ErrorResponseSchema.parse(JSON.parse(body)).error };
}

describe('clientErrorListener', () => {
  it('answers parse errors 400, header overflow 431, the request deadline 408, as JSON, then ends the socket; logged at info', () => {
    const { logged, fire } = listener();
    const cases: [string, number, string][] = [
      ['HPE_INVALID_METHOD', 400, 'invalid_request'],
      ['HPE_HEADER_OVERFLOW', 431, 'headers_too_large'],
      ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 413, 'payload_too_large'],
      ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout'],
    ];
    for (const [code, status, errorCode] of cases) {
      const socket = fakeSocket();
      fire(code, socket, 'Invalid method encountered');
      expect(socket.ended && socket.destroyed, code).toBe(true);
      const answer = answerOf(socket.written);
      expect(answer.status, code).toBe(status);
      expect(answer.error.code, code).toBe(errorCode);
    }
    expect(logged.map((l) => l.level)).toEqual(['info', 'info', 'info', 'info']);
  });

  it('names the parser code and reason of a request that is not HTTP, and the header limit passed', () => {
    const socket = fakeSocket();
    listener().fire('HPE_INVALID_CONTENT_LENGTH', socket, 'Invalid character in Content-Length');
    expect(answerOf(socket.written).error.message).toBe('the request is not valid HTTP (HPE_INVALID_CONTENT_LENGTH): invalid character in Content-Length');
    const headers = fakeSocket();
    listener().fire('HPE_HEADER_OVERFLOW', headers, 'Header overflow');
    expect(answerOf(headers.written).error.message).toBe(`the request headers are larger than the server takes (${maxHeaderSize} bytes)`);
  });

  it('writes nothing to a socket reset by the client, no longer writable, or with an answer under way: destroyed, logged at debug', () => {
    const { logged, fire } = listener();
    const sockets = [
      ['ECONNRESET', fakeSocket()],
      ['HPE_INVALID_METHOD', fakeSocket({ writable: false })],
      ['HPE_INVALID_METHOD', fakeSocket({ headersSent: true })],
    ] as const;
    for (const [code, socket] of sockets) {
      fire(code, socket);
      expect(socket.written, code).toBe('');
      expect(socket.destroyed, code).toBe(true);
    }
    expect(logged).toEqual([
      { level: 'debug', msg: 'connection closed by the client before its request was read' },
      { level: 'debug', msg: 'request fault on a connection that can take no answer: connection closed' },
      { level: 'debug', msg: 'request fault on a connection that can take no answer: connection closed' },
    ]);
    // an answer not yet begun (its headers not sent) is no reason to stay silent
    const pending = fakeSocket({ headersSent: false });
    fire('ERR_HTTP_REQUEST_TIMEOUT', pending);
    expect(answerOf(pending.written).status).toBe(408);
  });
});

describe('isClientGoneError', () => {
  it("is true for a connection the client closed or reset, false for the rest", () => {
    const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
    expect(isClientGoneError(coded('aborted', 'ECONNRESET'))).toBe(true);
    expect(isClientGoneError(coded('write EPIPE', 'EPIPE'))).toBe(true);
    expect(isClientGoneError(coded('Premature close', 'ERR_STREAM_PREMATURE_CLOSE'))).toBe(true);
    expect(isClientGoneError(coded('connect ECONNREFUSED', 'ECONNREFUSED'))).toBe(false);
    expect(isClientGoneError(new TypeError('x is undefined'))).toBe(false);
    expect(isClientGoneError(new SolverError('internal_error', 'internal error'))).toBe(false);
    expect(isClientGoneError('aborted')).toBe(false);
  });
});
