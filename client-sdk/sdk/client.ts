/**
 * The typed HTTP client of the solver service. Its request and response types
 * are inferred from the same zod schemas the server validates with
 * (`api/schemas.ts`, `api/batch-schemas.ts`), and every answer is parsed with them, so
 * a client and a server of the same version cannot disagree silently.
 *
 *   const client = createClient({ baseUrl: 'http://localhost:3000', apiKey });
 *   const answer = await client.solve({ game: 'freecell', deal: 617 });
 *
 * Retries: an answer 429 (`rate_limited`, not `quota_exceeded`) or 503 (`overloaded`) is retried
 * after its `Retry-After` (seconds or an HTTP date), else after an exponential
 * backoff with jitter (250 ms, 500 ms, 1 s, ... capped at 30 s), up to
 * `retries` times (default 4). A network failure is retried the same way for
 * requests that are safe to repeat (everything but `createBatch`).
 *
 * Errors: every failure is a `ServiceError` (a `SolverError`) whose `code` is
 * the service's error code (`unknown_game`, `malformed_board`, `overloaded`,
 * ...), with `status`, the location of a fault in the input, and
 * `retryAfterMs` when the service gave one; `unavailable` when the service
 * could not be reached or answered something that is not the API.
 */
import type { z } from 'zod';
import {
  BatchResultSchema,
  BatchStatusSchema,
  type BatchRequestSchema,
  type BatchResult,
  type BatchStatus,
  type BatchVerdict,
} from '../api/batch-schemas.js';
import { SolverError, type ErrorCode, type ErrorLocation } from '../core/errors.js';
import { issueMessage } from '../core/issue-messages.js';
import {
  DealsResponseSchema,
  DifficultyResponseSchema,
  ReviewResponseSchema,
  type DealsQuerySchema,
  type DealsResponse,
  type DifficultyRequestSchema,
  type DifficultyResponse,
  type ReviewRequestSchema,
  type ReviewResponse,
} from '../api/apps-schemas.js';
import {
  ErrorResponseSchema,
  GamesResponseSchema,
  SolveResponseSchema,
  type GamesResponse,
  type SolveRequestSchema,
  type SolveResponse,
} from '../api/schemas.js';

/** A solve request as the client takes it (the input type of the server's schema). */
export type SolveRequestInput = z.input<typeof SolveRequestSchema>;
/** A review request as the client takes it (`POST /v1/review`). */
export type ReviewRequestInput = z.input<typeof ReviewRequestSchema>;
/** A difficulty request as the client takes it (`POST /v1/difficulty`). */
export type DifficultyRequestInput = z.input<typeof DifficultyRequestSchema>;
/** The query of `GET /v1/deals`; numbers may be given as numbers. */
export type DealsQueryInput = { [K in keyof z.input<typeof DealsQuerySchema>]: z.input<typeof DealsQuerySchema>[K] | (K extends 'game' | 'numbering' ? never : number | boolean) };
/** A batch request as the client takes it. */
export type BatchRequestInput = z.input<typeof BatchRequestSchema>;

/** Options of `createClient`. */
export interface ClientOptions {
  /** The service's base URL, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when the service requires API keys. */
  apiKey?: string;
  /** The fetch to use (default: the global one), e.g. to add tracing or run in tests. */
  fetch?: typeof fetch;
  /** Retries after 429/503 or a network failure; default 4. */
  retries?: number;
  /** First backoff delay, ms; default 250 (doubles each retry, with jitter). */
  retryBaseMs?: number;
  /** Longest wait between retries, ms, even if `Retry-After` asks for more; default 30,000. */
  maxRetryDelayMs?: number;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
}

/** Options of `batchResults`. */
export interface BatchResultsOptions extends CallOptions {
  /** Resume after this `seq` (default 0: from the first result). */
  after?: number;
  /** Include each solution as JSON `moves` (default false: `notation` only). */
  moves?: boolean;
  /** Wait for results still to come until the batch ends (default true). */
  follow?: boolean;
  /**
   * Only the results of these verdicts (default: every stored result). A
   * batch that keeps `exceptions` stores no `solved` result, so asking it
   * for `solved` is a 400 (`invalid_request`).
   */
  verdicts?: readonly BatchVerdict[];
}

/**
 * An error answered by the service (or the failure to reach it): a
 * `SolverError` with the service's `code`, plus the HTTP `status` and, after
 * a 429/503, how long the service asked to wait.
 */
export class ServiceError extends SolverError {
  /** HTTP status of the answer (503 for `unavailable`). */
  declare readonly status: number;
  /** The `Retry-After` of the answer, ms, when it had one. */
  readonly retryAfterMs?: number;

  constructor(code: ErrorCode, message: string, options: { status?: number; location?: ErrorLocation; retryAfterMs?: number; cause?: unknown } = {}) {
    super(code, message, options.location);
    this.name = 'ServiceError';
    if (options.status !== undefined) Object.defineProperty(this, 'status', { value: options.status, enumerable: true });
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.cause !== undefined) Object.defineProperty(this, 'cause', { value: options.cause });
  }
}

/**
 * The answer of `POST /v1/proofs`: the certificate file of an `unsolvable`
 * verdict (gzip bytes, format in docs/proofs.md, with the count of positions
 * and the fingerprint of the explored set from the `X-Proof-*` headers), or
 * the JSON answer of `POST /v1/solve` when there is no certificate to give
 * (another verdict, or a set over the service's caps).
 */
export type ProofAnswer =
  | { kind: 'certificate'; certificate: Uint8Array; positions: number | null; fingerprint: string | null }
  | { kind: 'answer'; response: SolveResponse };

/** The client; see `createClient`. */
export interface SolverClient {
  /**
   * `POST /v1/proofs`: solves like `solve`, and for `unsolvable` gives the
   * certificate as bytes (check it with `npm run check-proof`, or the
   * package's checker).
   */
  proof(request: SolveRequestInput, options?: CallOptions): Promise<ProofAnswer>;
  /** `POST /v1/solve`: solves one position. */
  solve(request: SolveRequestInput, options?: CallOptions): Promise<SolveResponse>;
  /** `GET /v1/games`: the game presets. */
  games(options?: CallOptions): Promise<GamesResponse>;
  /** `POST /v1/review`: where a played game was lost, with the proof and a winning alternative (docs/apps.md). */
  review(request: ReviewRequestInput, options?: CallOptions): Promise<ReviewResponse>;
  /** `POST /v1/difficulty`: fewest free cells (`min_cells`) or the Castle ladder, with solution and proof. */
  difficulty(request: DifficultyRequestInput, options?: CallOptions): Promise<DifficultyResponse>;
  /** `GET /v1/deals?winnable=true`: winnable deal numbers, the same for the same seed. */
  winnableDeals(query: DealsQueryInput, options?: CallOptions): Promise<DealsResponse>;
  /** `POST /v1/batches`: starts a batch; resolves with its status (id, URLs). */
  createBatch(request: BatchRequestInput, options?: CallOptions): Promise<BatchStatus>;
  /** `GET /v1/batches/{id}`: progress and summary. */
  batchStatus(id: string, options?: CallOptions): Promise<BatchStatus>;
  /**
   * `GET /v1/batches/{id}/results` as an async iterator, in completion order.
   * A broken connection is resumed from the last `seq` received, so every
   * result comes exactly once; the iterator ends when the batch has ended and
   * every result was given (with `follow: false`: when the stored ones were).
   */
  batchResults(id: string, options?: BatchResultsOptions): AsyncIterable<BatchResult>;
  /** `DELETE /v1/batches/{id}`: cancels; resolves with the status. */
  cancelBatch(id: string, options?: CallOptions): Promise<BatchStatus>;
  /**
   * `DELETE /v1/batches/{id}/results`: deletes the stored results of an
   * ended batch (the status and summary stay); resolves with the status
   * (`stored` 0, `purgedAt` set). A running batch is a 409 (`conflict`): cancel it first.
   */
  deleteBatchResults(id: string, options?: CallOptions): Promise<BatchStatus>;
  /** Polls the status every `intervalMs` (default 500) until the batch is no longer running. */
  waitForBatch(id: string, options?: CallOptions & { intervalMs?: number; onProgress?: (status: BatchStatus) => void }): Promise<BatchStatus>;
}

const RETRY_STATUSES = new Set([429, 503]);

/**
 * Creates a client of the service at `options.baseUrl`.
 * @throws TypeError when `baseUrl` is not an http(s) URL (a configuration
 *   fault, reported at once rather than as `unavailable` after the retries);
 *   in a page it may be relative to the page's address.
 */
export function createClient(options: ClientOptions): SolverClient {
  let parsed: URL | undefined;
  try {
    parsed = new URL(options.baseUrl, (globalThis as { location?: { href: string } }).location?.href);
  } catch {
    // reported below
  }
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
    throw new TypeError(`createClient: baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const retries = options.retries ?? 4;
  const retryBaseMs = options.retryBaseMs ?? 250;
  const maxDelay = options.maxRetryDelayMs ?? 30_000;

  const headers = (json: boolean): Record<string, string> => ({
    accept: 'application/json',
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
    ...options.headers,
  });

  const backoff = (attempt: number) => Math.min(maxDelay, retryBaseMs * 2 ** attempt * (0.5 + Math.random() / 2));

  /** Sends a request with the retry policy; resolves with a 2xx response, throws `ServiceError` otherwise. */
  async function send(method: string, path: string, body: unknown, idempotent: boolean, signal?: AbortSignal): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await doFetch(`${base}${path}`, {
          method,
          headers: headers(body !== undefined),
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal,
        });
      } catch (err) {
        if (signal?.aborted) throw err;
        if (!idempotent || attempt >= retries) {
          throw new ServiceError('unavailable', `cannot reach the solver service at ${base}: ${err instanceof Error ? err.message : String(err)}`, {
            status: 503,
            cause: err,
          });
        }
        await sleep(backoff(attempt), signal);
        continue;
      }
      if (res.ok) return res;
      const error = await toServiceError(res);
      // a quota (`quota_exceeded`) frees up when earlier batches end, not after a backoff
      if (RETRY_STATUSES.has(res.status) && error.code !== 'quota_exceeded' && attempt < retries) {
        await res.body?.cancel().catch(() => {});
        await sleep(Math.min(maxDelay, error.retryAfterMs ?? backoff(attempt)), signal);
        continue;
      }
      throw error;
    }
  }

  async function json<S extends z.ZodType>(schema: S, res: Response): Promise<z.infer<S>> {
    let data: unknown;
    try {
      data = await res.json();
    } catch (err) {
      throw new ServiceError('unavailable', `the service answered ${res.status} with a body that is not JSON`, { status: 503, cause: err });
    }
    return apiShaped(schema, data, "the service's answer");
  }

  /**
   * `data` read by `schema` (an answer of the service, or one line of a
   * results stream: `what` names it in the error).
   * @throws ServiceError `unavailable` (status 503) naming the first field
   *   that does not match the API.
   */
  function apiShaped<S extends z.ZodType>(schema: S, data: unknown, what: string): z.infer<S> {
    const parsed = schema.safeParse(data, { error: issueMessage });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const at = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
      throw new ServiceError('unavailable', `${what} does not match the API: ${at}${issue?.message}`, { status: 503 });
    }
    return parsed.data;
  }

  /** One NDJSON line of `GET /v1/batches/{id}/results` as a result. @throws ServiceError `unavailable` when it is not JSON or not a result. */
  function resultLine(line: string): BatchResult {
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch (err) {
      throw new ServiceError('unavailable', 'the service sent a results line that is not JSON', { status: 503, cause: err });
    }
    return apiShaped(BatchResultSchema, data, 'a results line of the service');
  }

  const client: SolverClient = {
    async solve(request, opts) {
      return json(SolveResponseSchema, await send('POST', '/v1/solve', request, true, opts?.signal));
    },
    async proof(request, opts) {
      const res = await send('POST', '/v1/proofs', request, true, opts?.signal);
      if (!/^application\/json\b/i.test(res.headers.get('content-type') ?? '')) {
        const positions = Number(res.headers.get('x-proof-positions'));
        return {
          kind: 'certificate',
          certificate: new Uint8Array(await res.arrayBuffer()),
          positions: Number.isSafeInteger(positions) && res.headers.has('x-proof-positions') ? positions : null,
          fingerprint: res.headers.get('x-proof-fingerprint'),
        };
      }
      return { kind: 'answer', response: await json(SolveResponseSchema, res) };
    },
    async games(opts) {
      return json(GamesResponseSchema, await send('GET', '/v1/games', undefined, true, opts?.signal));
    },
    async review(request, opts) {
      return json(ReviewResponseSchema, await send('POST', '/v1/review', request, true, opts?.signal));
    },
    async difficulty(request, opts) {
      return json(DifficultyResponseSchema, await send('POST', '/v1/difficulty', request, true, opts?.signal));
    },
    async winnableDeals(query, opts) {
      const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
      return json(DealsResponseSchema, await send('GET', `/v1/deals?${params}`, undefined, true, opts?.signal));
    },
    async createBatch(request, opts) {
      return json(BatchStatusSchema, await send('POST', '/v1/batches', request, false, opts?.signal));
    },
    async batchStatus(id, opts) {
      return json(BatchStatusSchema, await send('GET', `/v1/batches/${encodeURIComponent(id)}`, undefined, true, opts?.signal));
    },
    async cancelBatch(id, opts) {
      return json(BatchStatusSchema, await send('DELETE', `/v1/batches/${encodeURIComponent(id)}`, undefined, true, opts?.signal));
    },
    async deleteBatchResults(id, opts) {
      return json(BatchStatusSchema, await send('DELETE', `/v1/batches/${encodeURIComponent(id)}/results`, undefined, true, opts?.signal));
    },
    async waitForBatch(id, opts = {}) {
      for (;;) {
        const status = await client.batchStatus(id, opts);
        opts.onProgress?.(status);
        if (status.status !== 'running') return status;
        await sleep(opts.intervalMs ?? 500, opts.signal);
      }
    },
    batchResults(id, opts = {}) {
      return {
        [Symbol.asyncIterator]: () => resultsIterator(id, opts),
      };
    },
  };

  async function* resultsIterator(id: string, opts: BatchResultsOptions): AsyncGenerator<BatchResult> {
    let after = opts.after ?? 0;
    const follow = opts.follow ?? true;
    const verdicts = opts.verdicts && opts.verdicts.length > 0 ? `&verdict=${[...new Set(opts.verdicts)].join(',')}` : '';
    let failures = 0;
    for (;;) {
      const query = `?after=${after}${opts.moves ? '&moves=true' : ''}${follow ? '' : '&follow=false'}${verdicts}`;
      const res = await send('GET', `/v1/batches/${encodeURIComponent(id)}/results${query}`, undefined, true, opts.signal);
      let given = 0;
      try {
        for await (const line of ndjsonLines(res.body!)) {
          const result = resultLine(line);
          if (result.seq <= after) continue;
          after = result.seq;
          failures = 0;
          given++;
          yield result;
        }
      } catch (err) {
        // A connection broken mid-stream: resume from the cursor (a line that is not the API's is no broken connection).
        if (opts.signal?.aborted || err instanceof ServiceError || failures >= retries) throw err;
        await sleep(backoff(failures++), opts.signal);
        continue;
      }
      if (!follow) return;
      // The stream ended: the batch ended, or the server went away (restart). Ask.
      const status = await client.batchStatus(id, opts);
      // Every stored result given; with a filter the last ones may not match, so an ended batch's stream that gave nothing more is the end.
      if (status.status !== 'running' && (after >= status.stored || (verdicts !== '' && given === 0))) return;
    }
  }

  return client;
}

/** Reads an error answer into a `ServiceError`. */
async function toServiceError(res: Response): Promise<ServiceError> {
  const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
  const text = await res.text().catch(() => '');
  try {
    const body = ErrorResponseSchema.parse(JSON.parse(text));
    const { code, message, ...location } = body.error;
    return new ServiceError(code, message, { status: res.status, location, retryAfterMs });
  } catch {
    return new ServiceError('unavailable', `the service answered HTTP ${res.status} without an API error body`, { status: res.status, retryAfterMs });
  }
}

/** `Retry-After` in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The lines of an NDJSON body (empty lines skipped). */
async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (line !== '') yield line;
      }
    }
    const rest = (buffer + decoder.decode()).trim();
    if (rest !== '') yield rest;
  } finally {
    // The consumer stopped early: close the connection.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
