/**
 * Requests to a Hono app in process (`app.request()`: no socket), as the
 * HTTP tests send them; and one POST to a real server on a fresh
 * connection (`postOnce`).
 */
import { request as httpRequest } from 'node:http';

/** An app `post` can call: the service's Hono app, or any with its `request`. */
export interface InProcessApp {
  request(path: string, init?: RequestInit): Response | Promise<Response>;
}

/** Options of {@link post}. */
export interface PostOptions {
  /** The route; default `/v1/solve`. */
  path?: string;
  /** Headers merged over `content-type: application/json`. */
  headers?: Record<string, string>;
  /** Aborts the request (the route sees `c.req.raw.signal` fire). */
  signal?: AbortSignal;
}

/**
 * POSTs `body` to `app` as JSON: an object is `JSON.stringify`d, a string is
 * sent as it is (for malformed bodies); the content type is
 * `application/json` unless `options.headers` gives another.
 */
export async function post(app: InProcessApp, body: unknown, options: PostOptions = {}): Promise<Response> {
  return app.request(options.path ?? '/v1/solve', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
}

/** What `postOnce` got: the status and body, or the socket's error code (`ECONNREFUSED`, ...). */
export interface OnceAnswer {
  status?: number;
  body?: string;
  error?: string;
}

/**
 * POSTs `body` as JSON to `POST /v1/solve` (or `path`) of the server on
 * 127.0.0.1:`port` on a connection of its own (no keep-alive agent,
 * `Connection: close`: with several fronts, each such request is a new
 * connection the primary hands to the next front). Never rejects.
 */
export function postOnce(port: number, body: unknown, options: { path?: string; headers?: Record<string, string> } = {}): Promise<OnceAnswer> {
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: options.path ?? '/v1/solve',
        agent: false,
        headers: { 'content-type': 'application/json', connection: 'close', ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, body: text }));
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(JSON.stringify(body));
  });
}
