/**
 * Node's response object of the request being served, which
 * @hono/node-server passes to the app as `c.env.outgoing`; undefined when
 * the app runs without Node's server (`app.request` in tests).
 */
import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';

/** `c.env.outgoing` when the request is served by Node's HTTP server, else undefined. */
export function nodeResponse(c: Context): ServerResponse | undefined {
  return (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
}
