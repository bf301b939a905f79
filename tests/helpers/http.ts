/**
 * Requests to a Hono app in process (`app.request()`: no socket), as the
 * HTTP tests send them.
 */

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
