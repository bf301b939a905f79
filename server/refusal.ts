/**
 * Refusal before the request is read: when the pool would refuse the work
 * a request asks for (`SolverPool.admits`: its class's queue is full, or an
 * interactive solve could not start within its bounded wait), the request
 * of a route that submits solver work is answered 503 `overloaded` with
 * `Retry-After` at the Node server's request event, before its body is
 * read or the app routes it: the status line, fixed headers and a fixed
 * body, a few microseconds of the main thread (docs/operations.md,
 * "Budgets, overload and faults"), so that clients resending at once
 * cannot take the main thread from the requests being answered.
 *
 * What is cheap to find keeps its 4xx: a request this gate does not
 * recognise exactly (another method or path, a content type that is not
 * JSON, a body with a `Content-Encoding` other than `identity`, a body over
 * the limit by its `Content-Length`) goes on to the app,
 * which answers it as always. With API keys, every request goes on to the
 * app: a key must be checked (in constant time, by the app's middleware)
 * before anything else is said, so there the refusal comes after it, from
 * the routes' own admission check.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isEncodedBody } from './app.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { SolvePriority } from './pool.js';

/** A route that submits solver work: its pattern and the class of that work. */
interface Gate {
  method: string;
  route: string;
  cls: SolvePriority;
}

/** The routes that submit solver work, by `METHOD path`. */
const GATES: readonly Gate[] = [
  { method: 'POST', route: '/v1/solve', cls: 'interactive' },
  { method: 'POST', route: '/v1/proofs', cls: 'interactive' },
  { method: 'POST', route: '/v1/review', cls: 'background' },
  { method: 'POST', route: '/v1/difficulty', cls: 'background' },
  { method: 'GET', route: '/v1/deals', cls: 'background' },
];
const GATED = new Map(GATES.map((g) => [`${g.method} ${g.route}`, g]));

/** What the app's JSON routes accept (app.ts `jsonBody`). */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** Options of `refusingListener`. */
export interface RefusalOptions {
  /** True when work of `cls` submitted now would be accepted (`SolverPool.admits`). */
  admits: (cls: SolvePriority) => boolean;
  /** Largest body the app accepts, bytes (a larger `Content-Length` goes on to the app's 413). */
  bodyLimitBytes: number;
  /** Seconds in `Retry-After`. */
  retryAfterSeconds: number;
  /** Response headers every answer of the app carries (security headers), added to the refusal's. */
  headers: Record<string, string>;
  /** True when API keys are configured: then nothing is refused here. */
  keys: boolean;
  metrics?: Pick<Metrics, 'requestSeries' | 'observeRefusal'>;
  logger: Pick<Logger, 'warn'>;
  /** How often refusals are summed up in one `warn` line, ms; default 10 s. */
  logEveryMs?: number;
}

/**
 * The answer of a refusal: 503 `overloaded`, its fixed JSON body and its
 * headers (`headers`, the app's security headers, with the content type,
 * length and `Retry-After`).
 */
export function refusalAnswer(headers: Readonly<Record<string, string>>, retryAfterSeconds: number): { body: Buffer; headers: Record<string, string> } {
  const body = Buffer.from(JSON.stringify({ error: { code: 'overloaded', message: 'the solver is busy (every worker busy and the queue full); retry later' } }));
  return {
    body,
    headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length), 'Retry-After': String(retryAfterSeconds) },
  };
}

/**
 * Wraps the app's request listener (@hono/node-server's) with the gate of
 * the file comment.
 */
export function refusingListener(listener: RequestListener, options: RefusalOptions): RequestListener {
  if (options.keys) return listener;
  const { body, headers } = refusalAnswer(options.headers, options.retryAfterSeconds);
  const everyMs = options.logEveryMs ?? 10_000;
  // each route's 503 counter, looked up once
  const series = new Map(GATES.map((g) => [g, options.metrics?.requestSeries(g.method, g.route, 503)]));
  let refused = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    options.logger.warn({ refused, seconds: everyMs / 1000, where: 'before the request was read' }, 'requests refused (503)');
    refused = 0;
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    const gate = gateOf(req, options.bodyLimitBytes);
    if (gate === undefined || options.admits(gate.cls)) {
      listener(req, res);
      return;
    }
    res.writeHead(503, headers);
    res.end(body);
    options.metrics?.observeRefusal('overloaded');
    series.get(gate)?.record(0);
    if (refused++ === 0) {
      timer = setTimeout(flush, everyMs);
      timer.unref();
    }
  };
}

/** The gated route `req` asks for, when it is one and nothing cheap to check is wrong with it. */
function gateOf(req: IncomingMessage, bodyLimit: number): Gate | undefined {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  const gate = GATED.get(`${req.method} ${q < 0 ? url : url.slice(0, q)}`);
  if (gate === undefined || req.method === 'GET') return gate;
  const type = req.headers['content-type'];
  if (type === undefined || !JSON_MEDIA_TYPE.test(type)) return undefined;
  if (isEncodedBody(req.headers['content-encoding'])) return undefined;
  const length = req.headers['content-length'];
  if (length !== undefined && !(Number(length) <= bodyLimit)) return undefined;
  return gate;
}
