/**
 * The HTTP API: Hono routes described with @hono/zod-openapi, so that request
 * validation and the OpenAPI document come from the same zod schemas
 * (`client-sdk/api/schemas.ts`).
 *
 * Routes: `POST /v1/solve`, `POST /v1/proofs` (an unsolvability certificate
 * as a file, docs/proofs.md), `GET /v1/games`, the app routes
 * (`POST /v1/review`, `POST /v1/difficulty`, `GET /v1/deals`: apps-routes.ts,
 * docs/apps.md), `GET /openapi.json` (OpenAPI
 * 3.1), `GET /docs` (Swagger UI), `GET /healthz`, and the web page (`web/`,
 * built into `dist/web/`) as static files at `/`, registered last so that
 * every API route keeps priority.
 *
 * Errors: every failure becomes `{error: {code, message, line?, column?,
 * token?, path?}}` with the status of `ERROR_STATUS[code]`, decided in ONE
 * place (`app.onError`); validation failures are thrown from each route's
 * hook (`requestHook`, server/openapi.ts: zod's messages in the house
 * wording) so they arrive there too. Bodies never carry a stack trace or
 * a file path: unexpected errors are logged and answered `internal_error`;
 * a request stream cut off because its client went away is no error of the
 * server and is not logged as one. Faults below the app (bytes that are not
 * HTTP, a request past its deadline) are answered by Node's server with the
 * same bodies (client-errors.ts).
 *
 * The app does no game logic and no solving itself: it takes a `solve`
 * function (the worker pool in production, a fake in HTTP tests).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIMEType } from 'node:util';
import { serveStatic } from '@hono/node-server/serve-static';
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { swaggerUI } from '@hono/swagger-ui';
import type { Context, MiddlewareHandler } from 'hono';
import type { RouterRoute } from 'hono/types';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { ERROR_STATUS, SolverError } from '../client-sdk/core/errors.js';
import { decodeUtf8Strict } from '../client-sdk/core/utf8.js';
import { buildSolveResponse, gamesResponse, resolveDeal, resolveLimits, resolveOptimize } from '../client-sdk/api/request.js';
import { DEFAULT_PROOF_CAPS, proofRequestFor, type ProofCaps } from '../client-sdk/core/proof/writer.js';
import { CERTIFICATE_MEDIA_TYPE } from '../client-sdk/core/proof/format.js';
import { PRESETS } from '../client-sdk/core/rules.js';
import {
  GamesResponseSchema,
  HealthResponseSchema,
  SolveRequestSchema,
  SolveResponseSchema,
  validationError,
  type ErrorResponse,
} from '../client-sdk/api/schemas.js';
import { DEFAULT_LIMITS_CONFIG, type LimitsConfig } from './limits.js';
import { ACCESS_RESPONSES, BEARER_SCHEME, BEARER_SECURITY_SCHEME, errorContent, JSON_BODY_RESPONSES, requestHook, SOLVER_RESPONSES } from './openapi.js';
import type { Cancellation, RequestJob, SolveFn, SolvePriority, WireResponse } from './pool.js';
import { clientSignal, requestContextOf } from './middleware/request-log.js';
import { isClientGoneError } from './client-errors.js';
import type { RequestContext } from './logger.js';
import { registerBatchRoutes } from './batches/routes.js';
import { registerAppRoutes } from './apps-routes.js';
import type { BatchBackend } from './batches/backend.js';

/** Settings of the HTTP layer. */
export interface AppConfig {
  /** Largest request body accepted, bytes (larger: 413 `payload_too_large`). */
  bodyLimitBytes: number;
  /** Defaults and caps of the solve budgets. */
  limits: LimitsConfig;
  /** Caps of unsolvability certificates (positions; inline bytes); default `DEFAULT_PROOF_CAPS`. */
  proofs?: ProofCaps;
}

/** 1 MiB, and the SDK's default budgets. */
export const DEFAULT_APP_CONFIG: Readonly<AppConfig> = Object.freeze({
  bodyLimitBytes: 1024 * 1024,
  limits: DEFAULT_LIMITS_CONFIG,
  proofs: DEFAULT_PROOF_CAPS,
});

/** Seconds a client is asked to wait after a 503 `overloaded`. */
export const RETRY_AFTER_SECONDS = 1;

/** What the app needs from the outside. */
export interface AppDeps {
  /** Runs one solve; `signal` fires when the client goes away. */
  solve: SolveFn;
  /**
   * Runs a request of `POST /v1/solve` or `/v1/proofs` on a worker that
   * resolves its position, solves it and builds the answer's bytes
   * (`SolverPool.solveRequest`), which the route writes as they are;
   * absent: `solve`, and the answer built here.
   */
  solveRequest?: (job: RequestJob, signal?: Cancellation) => Promise<WireResponse>;
  /** Overrides of `DEFAULT_APP_CONFIG`. */
  config?: { bodyLimitBytes?: number; limits?: Partial<LimitsConfig>; proofs?: Partial<ProofCaps> };
  /** Extra fields for `GET /healthz` (e.g. pool numbers), now or later. */
  health?: () => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Where unexpected errors are logged, with the log context of the request that met them (`requestContextOf`); default `console.error`. */
  logError?: (message: string, err: unknown, context?: RequestContext) => void;
  /**
   * How many positions the app routes (`/v1/review`, `/v1/difficulty`,
   * `/v1/deals`) decide at once: the pool's thread count; default 1.
   */
  parallelism?: number;
  /**
   * Admission check (load shedding), called by every route that submits
   * solver work (`/v1/solve`, `/v1/proofs`, `/v1/review`, `/v1/difficulty`,
   * `/v1/deals`) AFTER the request has been parsed and validated and BEFORE
   * the first solve is submitted: bad input keeps its 4xx under overload, a
   * valid request is refused cheaply (no engine work). Throws to refuse,
   * e.g. SolverError `overloaded` (503 + Retry-After); absent: admit all.
   */
  admit?: (priority: SolvePriority) => void;
  /** Batch analysis (`/v1/batches`, server/batches/): `BatchService` (embedded) or the Redis backend; absent: no batch routes. */
  batches?: BatchBackend;
  /** Folder of the built web page served at `/`; default {@link WEB_ROOT}; null serves none. */
  webRoot?: string | null;
  /**
   * Installs the operations layer (request ids, logs, metrics, secure
   * headers, CORS, API keys, `/metrics`, `/readyz`: `server/middleware/`)
   * before any route, so that it wraps every route, those added later too.
   */
  operations?: (app: OpenAPIHono) => void;
}

/**
 * The built web page (`npm run build:web`), resolved through the package.json
 * `imports` entry `#web/*` so that the path is the same from source and from `dist/`.
 */
export const WEB_ROOT = dirname(fileURLToPath(import.meta.resolve('#web/index.html')));

/** Accepts `application/json` and `application/*+json`, with parameters. */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * The charset a `Content-Type` header declares, lower-cased, or undefined
 * when it declares none (or cannot be parsed: the media type check refuses
 * it then). Parsed by Node's WHATWG MIME type parser (`util.MIMEType`),
 * only when the header has parameters.
 */
function declaredCharset(contentType: string): string | undefined {
  if (!contentType.includes(';')) return undefined;
  try {
    return new MIMEType(contentType).params.get('charset')?.toLowerCase() ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when a `Content-Encoding` header lists a coding other than
 * `identity` (case-insensitively); false when it is absent or lists only
 * `identity`. The service decodes no request body: an encoded one would be
 * read as if it were plain.
 */
export function isEncodedBody(contentEncoding: string | undefined): boolean {
  return contentEncoding !== undefined && contentEncoding.split(',').some((coding) => coding.trim() !== '' && coding.trim().toLowerCase() !== 'identity');
}

/**
 * Checks, before the body is read, that it is not encoded (415 for a
 * `Content-Encoding` other than `identity`: bodies are not decoded, and a
 * gzipped body would otherwise be read as if its bytes were the JSON) and
 * the content type (415 otherwise; also 415 for a charset other than
 * UTF-8: JSON travels in UTF-8, RFC 8259 §8.1, and a body declared UTF-16 or
 * Latin-1 would otherwise be read as UTF-8); then that the body is UTF-8 (400
 * `invalid_utf8` with the byte offset otherwise: `Request.json()` alone would
 * replace bad bytes by U+FFFD and so solve another board) and that it is JSON
 * (400 `malformed_json` otherwise, with the parser's position), before the
 * schema validator reads the same, cached, body.
 */
const jsonBody: MiddlewareHandler = async (c, next) => {
  const encoding = c.req.header('content-encoding');
  if (isEncodedBody(encoding)) {
    throw new SolverError('unsupported_media_type', `Content-Encoding ${JSON.stringify(encoding!.trim().slice(0, 40))} is not supported: send the body uncompressed`);
  }
  const contentType = c.req.header('content-type');
  const mediaType = contentType?.split(';')[0].trim() ?? '';
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    throw new SolverError(
      'unsupported_media_type',
      contentType ? `send the request as application/json, not ${mediaType}` : 'send the request as application/json (Content-Type header missing)',
    );
  }
  const charset = declaredCharset(contentType!);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new SolverError('unsupported_media_type', `send the request body in UTF-8 (charset=utf-8 or none), not charset=${charset.slice(0, 40)}`);
  }
  const text = decodeUtf8Strict(new Uint8Array(await c.req.arrayBuffer()), 'the request body');
  try {
    JSON.parse(text);
  } catch (err) {
    const detail = err instanceof SyntaxError ? `: ${err.message}` : '';
    const location = err instanceof SyntaxError ? jsonFaultLocation(text, err.message) : undefined;
    throw new SolverError('malformed_json', `the request body is not valid JSON${detail}`, location);
  }
  // the validator reads the body as text: this one (read once, checked), not a new Response of the bytes read again
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
  await next();
};

/**
 * Where JSON.parse stopped in `text`, as a 1-based line and column: read from
 * V8's message when it names a place ("... in JSON at position 12", or
 * "Unexpected end of JSON input": the end of the text); otherwise (V8's
 * "Unexpected token 'x', ... is not valid JSON" names none) the offset of
 * the first error jsonc-parser finds, in strict mode (no comments, no
 * trailing commas). Undefined when neither gives a place.
 */
export function jsonFaultLocation(text: string, message: string): { line: number; column: number } | undefined {
  const at = /at position (\d+)/.exec(message);
  let offset = at ? Math.min(Number(at[1]), text.length) : /end of JSON input/.test(message) ? text.length : -1;
  if (offset < 0) {
    const errors: ParseError[] = [];
    parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    if (errors.length === 0) return undefined;
    offset = Math.min(errors[0].offset, text.length);
  }
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** The request of `POST /v1/solve` and `POST /v1/proofs`: the same JSON body. */
const SOLVE_REQUEST = {
  body: { required: true, content: { 'application/json': { schema: SolveRequestSchema } } },
} as const;

/** The failures of `POST /v1/solve` and `POST /v1/proofs`: the same body, the same faults. */
const SOLVE_ERROR_RESPONSES = {
  400: errorContent('Invalid request: bad JSON, schema violation, malformed board, bad rules or limits, deal out of range.'),
  ...JSON_BODY_RESPONSES,
  ...SOLVER_RESPONSES,
} as const;

const solveRoute = createRoute({
  method: 'post',
  path: '/v1/solve',
  tags: ['solver'],
  summary: 'Solve one position',
  description:
    'Solves a deal (by number), a board (fc-solve text) or a layout (JSON) of a game, within state and time budgets. ' +
    'The verdict is `solved` (with a solution replayed by an independent checker), `unsolvable` (complete search), or `unknown` (a budget ran out).',
  middleware: [jsonBody] as const,
  request: SOLVE_REQUEST,
  responses: {
    200: { description: 'The verdict, the solution and the counters.', content: { 'application/json': { schema: SolveResponseSchema } } },
    ...SOLVE_ERROR_RESPONSES,
  },
});

const proofsRoute = createRoute({
  method: 'post',
  path: '/v1/proofs',
  tags: ['solver'],
  summary: 'Download an unsolvability certificate',
  description:
    'Solves like `POST /v1/solve` (same body). When the verdict is `unsolvable`, the answer is the certificate file (`application/gzip`, format in docs/proofs.md; ' +
    'check it with `npm run check-proof -- FILE`), with `X-Proof-Positions` and `X-Proof-Fingerprint` headers. Otherwise, or when the set is over the ' +
    "service's position cap, the answer is the JSON of `POST /v1/solve` (with `proof.certificate.reason`).",
  middleware: [jsonBody] as const,
  request: SOLVE_REQUEST,
  responses: {
    200: {
      description: 'The certificate (unsolvable), or the JSON answer (any other verdict, or a set over the cap).',
      content: {
        'application/gzip': { schema: z.string().openapi({ type: 'string', format: 'binary' }) },
        'application/json': { schema: SolveResponseSchema },
      },
    },
    ...SOLVE_ERROR_RESPONSES,
  },
});

const gamesRoute = createRoute({
  method: 'get',
  path: '/v1/games',
  tags: ['solver'],
  summary: 'List the games',
  description: 'Every game preset with its rules and the deal numberings it accepts.',
  responses: {
    200: { description: 'The games.', content: { 'application/json': { schema: GamesResponseSchema } } },
    ...ACCESS_RESPONSES,
  },
});

const healthRoute = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['service'],
  summary: 'Liveness',
  responses: {
    200: { description: 'The service is up.', content: { 'application/json': { schema: HealthResponseSchema } } },
  },
});

/**
 * The API's paths (`/v1/…`) and the methods each takes, in the order
 * registered, read from an app's routes (Hono's `app.routes`; middleware,
 * method `ALL`, left out): for a 405 with `Allow` when a known path is called
 * with another method (else 404). A `:param` segment matches any one segment.
 */
function apiMethods(routes: readonly RouterRoute[]): [RegExp, string[]][] {
  const byPath = new Map<string, Set<string>>();
  for (const { path, method } of routes) {
    if (method === 'ALL' || !path.startsWith('/v1/')) continue;
    const methods = byPath.get(path) ?? new Set<string>();
    byPath.set(path, methods.add(method));
  }
  const segment = (s: string) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return [...byPath].map(([path, methods]) => [new RegExp(`^${path.split('/').map(segment).join('/')}$`), [...methods]]);
}

/** Maps an error thrown by Hono itself (body limit, media type gate, JSON parse) to our codes. */
function fromHttpException(err: HTTPException): SolverError {
  switch (err.status) {
    case 413:
      return new SolverError('payload_too_large', 'the request body is too large');
    case 415:
      return new SolverError('unsupported_media_type', 'send the request as application/json');
    case 404:
      return new SolverError('not_found', 'not found');
    case 400:
      return /json/i.test(err.message)
        ? new SolverError('malformed_json', 'the request body is not valid JSON')
        : new SolverError('invalid_request', 'bad request');
    default:
      return new SolverError('internal_error', 'internal error');
  }
}

function sendError(c: Context, err: SolverError): Response {
  if (err.code === 'overloaded') c.header('Retry-After', String(RETRY_AFTER_SECONDS));
  const body: ErrorResponse = err.toJSON();
  return c.json(body, err.status as ContentfulStatusCode);
}

/** Swagger UI's assets from the installed `swagger-ui-dist`, or null when it is not installed. */
function localSwaggerAssets(): { dir: string } | null {
  try {
    const pkg = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json');
    return { dir: dirname(pkg) };
  } catch {
    return null;
  }
}

const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/**
 * Builds the service's Hono app.
 * @param deps the solve function, configuration overrides and hooks (see `AppDeps`).
 */
export function createApp(deps: AppDeps): OpenAPIHono {
  const config: AppConfig & { proofs: ProofCaps } = {
    bodyLimitBytes: deps.config?.bodyLimitBytes ?? DEFAULT_APP_CONFIG.bodyLimitBytes,
    limits: { ...DEFAULT_APP_CONFIG.limits, ...deps.config?.limits },
    proofs: { ...DEFAULT_PROOF_CAPS, ...deps.config?.proofs },
  };
  const logError = deps.logError ?? ((message: string, err: unknown) => console.error(message, err));

  const app = new OpenAPIHono({
    // every route with a request schema passes its own `requestHook`; this one is the fallback of a route that does not
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });

  app.onError((err, c) => {
    if (err instanceof SolverError) {
      if (err.status >= 500) logError(`${c.req.method} ${c.req.path}: ${err.code}`, err, requestContextOf(c));
      return sendError(c, err);
    }
    if (err instanceof HTTPException) return sendError(c, fromHttpException(err));
    if (isClientGoneError(err) && clientSignal(c).aborted) {
      // The client closed its connection while its request was read (it left, or
      // was cut off at REQUEST_TIMEOUT_MS): no fault of the server, and nobody to
      // answer; the access log records it at info (499, "request abandoned by the client").
      return sendError(c, new SolverError('invalid_request', 'the request was not received in full: the client closed the connection'));
    }
    logError(`${c.req.method} ${c.req.path}: unexpected error`, err, requestContextOf(c));
    return sendError(c, new SolverError('internal_error', 'internal error'));
  });

  let allowedMethods: [RegExp, string[]][] | undefined; // read on the first miss, when every route is in
  app.notFound((c) => {
    allowedMethods ??= apiMethods(app.routes);
    const allowed = allowedMethods.find(([path]) => path.test(c.req.path))?.[1];
    if (allowed) {
      c.header('Allow', allowed.join(', '));
      return sendError(c, new SolverError('method_not_allowed', `${c.req.path} takes ${allowed.join(', ')}, not ${c.req.method}`));
    }
    return sendError(c, new SolverError('not_found', `no route for ${c.req.method} ${c.req.path}`));
  });

  deps.operations?.(app);

  const tooLarge = () => {
    throw new SolverError('payload_too_large', `the request body is larger than ${config.bodyLimitBytes} bytes`);
  };
  const countedLimit = bodyLimit({ maxSize: config.bodyLimitBytes, onError: tooLarge });
  app.use('/v1/*', async (c, next) => {
    // With a Content-Length (and no Transfer-Encoding) the header decides, as in
    // hono's bodyLimit, but without touching `c.req.raw.body`: that would turn
    // the body into a web stream and cost @hono/node-server its direct read
    // (main-thread time on every solve: bench/http.ts shows it). Other
    // bodies are counted as they stream in, by hono's bodyLimit.
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined && /^\d+$/.test(length.trim())) {
      return Number(length) > config.bodyLimitBytes ? tooLarge() : next();
    }
    return countedLimit(c, next);
  });

  /**
   * The answer a worker built, written as it is: the JSON answer, or
   * (`/v1/proofs`) the certificate file with its headers. Through `c.body`,
   * so that the headers the middleware set before (request id, security)
   * are built in rather than added to a copy of the answer afterwards.
   */
  const written = (c: Context, answer: WireResponse): Response => {
    const cert = answer.certificate;
    if (cert === undefined) return c.body(answer.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': 'application/json' });
    return c.body(answer.body as Uint8Array<ArrayBuffer>, 200, {
      'Content-Type': CERTIFICATE_MEDIA_TYPE,
      'Content-Disposition': `attachment; filename="${cert.filename}"`,
      'X-Proof-Positions': String(cert.positions),
      'X-Proof-Fingerprint': cert.fingerprint,
    });
  };

  app.openapi(solveRoute, async (c) => {
    const req = c.req.valid('json');
    if (deps.solveRequest) {
      const limits = resolveLimits(req.limits, config.limits, req.game);
      const optimize = resolveOptimize(req);
      const proof = req.proof === true ? proofRequestFor(req, config.proofs, 'inline') : undefined;
      deps.admit?.('interactive');
      return written(c, await deps.solveRequest({ route: 'solve', request: req, limits, ...(proof ? { proof } : {}), ...(optimize ? { optimize } : {}) }, clientSignal(c))) as never;
    }
    const deal = resolveDeal(req);
    const limits = resolveLimits(req.limits, config.limits, req.game);
    const optimize = resolveOptimize(req);
    const options = {
      ...(req.proof === true ? { proof: proofRequestFor(req, config.proofs, 'inline') } : {}),
      ...(optimize !== undefined ? { optimize } : {}),
    };
    deps.admit?.('interactive');
    const outcome = await deps.solve(deal, limits, clientSignal(c), options);
    return c.json(buildSolveResponse(req.game, deal, limits, outcome), 200);
  }, requestHook(solveRoute));

  app.openapi(proofsRoute, async (c) => {
    const req = c.req.valid('json');
    if (deps.solveRequest) {
      const limits = resolveLimits(req.limits, config.limits, req.game);
      const proof = proofRequestFor(req, config.proofs, 'download');
      deps.admit?.('interactive');
      return written(c, await deps.solveRequest({ route: 'proofs', request: req, limits, proof }, clientSignal(c))) as never;
    }
    const deal = resolveDeal(req);
    const limits = resolveLimits(req.limits, config.limits, req.game);
    const proof = proofRequestFor(req, config.proofs, 'download');
    deps.admit?.('interactive');
    const outcome = await deps.solve(deal, limits, clientSignal(c), { proof });
    const certificate = outcome.proof?.certificate;
    if (outcome.proof !== undefined && certificate?.included) {
      const name = `${req.game}-${req.deal !== undefined ? String(req.deal) : 'position'}.proof.gz`.replace(/[^\w.-]/g, '_');
      return new Response(certificate.certificate as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: {
          'Content-Type': CERTIFICATE_MEDIA_TYPE,
          'Content-Disposition': `attachment; filename="${name}"`,
          'X-Proof-Positions': String(outcome.proof.positions),
          'X-Proof-Fingerprint': outcome.proof.fingerprint,
        },
      });
    }
    return c.json(buildSolveResponse(req.game, deal, limits, outcome), 200);
  }, requestHook(proofsRoute));

  if (deps.batches) registerBatchRoutes(app, { service: deps.batches, jsonBody });
  registerAppRoutes(app, {
    // the app routes' searches run below interactive solves (server/pool/queue.ts), each by its request's deadline
    decider: {
      decide: (deal, limits, signal, options) => deps.solve(deal, limits, signal, { ...options, priority: 'background' }),
      parallelism: deps.parallelism ?? 1,
      ...(deps.admit ? { admit: () => deps.admit!('background') } : {}),
    },
    config: { limits: config.limits, proofCaps: config.proofs },
    jsonBody,
  });

  app.openapi(gamesRoute, (c) =>
    c.json(gamesResponse(), 200),
  );

  app.openapi(healthRoute, async (c) => c.json({ ...(await deps.health?.()), status: 'ok' as const }, 200));

  app.openAPIRegistry.registerComponent('securitySchemes', BEARER_SCHEME, BEARER_SECURITY_SCHEME);
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    // a bearer API key, or nothing when the server has no API_KEYS
    security: [{ [BEARER_SCHEME]: [] }, {}],
    info: {
      title: 'Solitaire solver',
      version: '0.1.0',
      description:
        `Solves open-information solitaire positions with a WebAssembly engine: the FreeCell family and the Beleaguered Castle family, ${PRESETS.length} games (${PRESETS.map((p) => p.name).join(', ')}). ` +
        `Every error answers {error: {code, message, ...}}; codes and statuses: ${Object.entries(ERROR_STATUS)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}.`,
    },
  });

  // Swagger UI, served from the installed swagger-ui-dist when present (no CDN);
  // otherwise @hono/swagger-ui's default CDN assets.
  const assets = localSwaggerAssets();
  if (assets) {
    const cache = new Map<string, string>();
    app.get('/docs/assets/swagger-ui-dist/:file', (c) => {
      const file = c.req.param('file');
      const type = SWAGGER_ASSETS[file];
      if (!type) return sendError(c, new SolverError('not_found', `no route for GET ${c.req.path}`));
      let text = cache.get(file);
      if (text === undefined) {
        text = readFileSync(join(assets.dir, file), 'utf8');
        cache.set(file, text);
      }
      c.header('Content-Type', type);
      c.header('Cache-Control', 'public, max-age=86400');
      return c.body(text);
    });
  }
  app.get('/docs', swaggerUI({ url: '/openapi.json', title: 'Solitaire solver API', ...(assets ? { baseUrl: '/docs/assets' } : {}) }));

  // The web page, last: a path no route above answers is looked up in the
  // build folder; a miss falls through to notFound. Hashed assets are
  // immutable. Source maps are never served (the build makes none; one left
  // in the folder by a development build stays private): 404.
  const webRoot = deps.webRoot === undefined ? WEB_ROOT : deps.webRoot;
  if (webRoot !== null && existsSync(join(webRoot, 'index.html'))) {
    const files = serveStatic({
      root: webRoot,
      onFound: (path, c) => {
        c.header('Cache-Control', /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    app.use('/*', (c, next) => (c.req.path.endsWith('.map') ? next() : files(c, next)));
  }

  return app;
}
