/**
 * The batch routes, described with @hono/zod-openapi like `POST /v1/solve`:
 *
 * - `POST /v1/batches` → 202, the new batch's status (id, URLs), `Location`;
 * - `GET /v1/batches/{id}` → progress and summary;
 * - `GET /v1/batches/{id}/results` → every result as NDJSON, in completion
 *   order (`seq`), from the cursor `?after=seq`, kept open until the batch
 *   ends (`?follow=false`: what is there now); as server-sent events when the
 *   client accepts `text/event-stream` (`id:` = seq, so `Last-Event-ID`
 *   resumes, and a final `end` event);
 *   `?verdict=unsolvable,unknown,error` keeps only those verdicts;
 * - `DELETE /v1/batches/{id}` → cancels; answers the status;
 * - `DELETE /v1/batches/{id}/results` → deletes the stored results of an
 *   ended batch and gives their storage back; answers the status.
 *
 * A results stream never holds the event loop: it sends at most PAGE
 * results a slice, only when the client's connection has taken the last
 * one (the stream is pulled: a slow reader is not read ahead of), and the
 * slices of all streams take turns with everything else: one slice per
 * turn of the event loop (`nextSlice`), so other requests are served
 * between any two slices however many readers read and however fast (a
 * socket that takes every write at once gives no turn by itself).
 *
 * Errors go through the app's one `onError` (thrown `SolverError`s).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import {
  BatchIdParamSchema,
  BatchRequestSchema,
  BatchResultSchema,
  BatchResultsQuerySchema,
  BatchStatusSchema,
  type BatchResult,
  type BatchVerdict,
} from '../../client-sdk/api/batch-schemas.js';
import { SolverError } from '../../client-sdk/core/errors.js';
import { apiKeyNameOf } from '../middleware/api-key-name.js';
import { ACCESS_RESPONSES, errorContent, JSON_BODY_RESPONSES, requestHook } from '../openapi.js';
import type { BatchBackend } from './backend.js';

/**
 * Results a slice of a stream: read, formatted and written between two
 * turns of the event loop. A result with its notation takes 20-40 µs to
 * format here, so a slice is a few ms, and eight readers at once hold the
 * loop for well under 50 ms.
 */
const PAGE = 64;
/** An SSE comment (or nothing, for NDJSON) is sent after this long without a result, ms. */
const HEARTBEAT_MS = 15_000;

/** Streams waiting for their next slice, oldest first (`nextSlice`). */
const waitingSlices: (() => void)[] = [];
let slicing = false;

/**
 * Resolves when it is this stream's turn for a slice: one slice of any
 * stream per turn of the event loop (each turn's `setImmediate` starts the
 * next waiting one), so I/O and timers run between any two slices, and
 * eight readers hold the loop no longer than one does.
 */
function nextSlice(): Promise<void> {
  return new Promise((resolve) => {
    waitingSlices.push(resolve);
    if (!slicing) {
      slicing = true;
      setImmediate(startNextSlice);
    }
  });
}

function startNextSlice(): void {
  const start = waitingSlices.shift();
  if (start === undefined) {
    slicing = false;
    return;
  }
  start();
  setImmediate(startNextSlice);
}

const statusContent = (description: string) => ({ description, content: { 'application/json': { schema: BatchStatusSchema } } });

/** What the batch routes need from the app. */
export interface BatchRouteDeps {
  /** The queue backend: `BatchService` (embedded) or `RedisBatchBackend` (redis). */
  service: BatchBackend;
  /** The app's JSON body gate (415 / `malformed_json`). */
  jsonBody: MiddlewareHandler;
}

/** Adds the batch routes to `app`. */
export function registerBatchRoutes(app: OpenAPIHono, deps: BatchRouteDeps): void {
  const { service } = deps;

  const createBatchRoute = createRoute({
    method: 'post',
    path: '/v1/batches',
    tags: ['batches'],
    summary: 'Start a batch',
    description:
      'Solves many positions of one game (a range or list of deal numbers, or a list of boards) with per-deal budgets, in the background, ' +
      'sharing the solver with single solves. Batches and results are stored durably: a restarted server resumes the batch without redoing finished deals.',
    middleware: [deps.jsonBody] as const,
    request: { body: { required: true, content: { 'application/json': { schema: BatchRequestSchema } } } },
    responses: {
      202: { ...statusContent('The batch is accepted and running; poll `urls.self`, stream `urls.results`.'), headers: { Location: { schema: { type: 'string' } } } },
      400: errorContent('Invalid request: schema violation, bad deal range or board (with its location), bad rules or limits, too many deals.'),
      404: errorContent('Unknown game.'),
      ...JSON_BODY_RESPONSES,
      500: errorContent('Internal error (the batch store failed).'),
      503: errorContent('The service is shutting down; retry on another instance.'),
      ...ACCESS_RESPONSES,
      429: errorContent(
        '`quota_exceeded`: the deals queued in running batches (of this API key, or of the service without keys) would pass a quota; `rate_limited`: the API key\'s requests per window are used up.',
      ),
    },
  });

  const statusRoute = createRoute({
    method: 'get',
    path: '/v1/batches/{id}',
    tags: ['batches'],
    summary: 'Progress of a batch',
    description: 'Done/total, counts by verdict, deals per second, ETA, and the summary: solvable share with its 95 % Wilson interval, unknowns, mean moves, time per deal.',
    request: { params: BatchIdParamSchema },
    responses: { 200: statusContent('The batch.'), 404: errorContent('No batch of that id.'), ...ACCESS_RESPONSES },
  });

  const cancelRoute = createRoute({
    method: 'delete',
    path: '/v1/batches/{id}',
    tags: ['batches'],
    summary: 'Cancel a batch',
    description: 'Stops the batch: no further deal starts and the running ones are stopped. Results already stored stay readable. Cancelling an ended batch changes nothing.',
    request: { params: BatchIdParamSchema },
    responses: { 200: statusContent('The batch, now `cancelled` (or as it ended).'), 404: errorContent('No batch of that id.'), ...ACCESS_RESPONSES },
  });

  const purgeRoute = createRoute({
    method: 'delete',
    path: '/v1/batches/{id}/results',
    tags: ['batches'],
    summary: 'Delete the stored results of a batch',
    description:
      'Deletes every stored result of an ended batch (done or cancelled) and gives their storage back; the status and summary stay (`stored` 0, `purgedAt` set). ' +
      'Stored results are also deleted by themselves once the batch ended longer ago than the retention time (`BATCH_RETENTION_HOURS`).',
    request: { params: BatchIdParamSchema },
    responses: {
      200: statusContent('The batch, its results deleted.'),
      404: errorContent('No batch of that id.'),
      409: errorContent('`conflict`: the batch is running; cancel it first.'),
      ...ACCESS_RESPONSES,
    },
  });

  const resultsRoute = createRoute({
    method: 'get',
    path: '/v1/batches/{id}/results',
    tags: ['batches'],
    summary: 'Stream the results of a batch',
    description:
      'One JSON object per line (NDJSON), in completion order: each carries `seq`, its 1-based place in that order. ' +
      'Resume after a broken connection with `?after=<last seq received>`. The stream stays open and sends results as they are decided until the batch ends ' +
      '(`?follow=false` answers what is stored now). With `Accept: text/event-stream` the same results come as server-sent events ' +
      '(`event: result`, `id: <seq>`, so `Last-Event-ID` resumes; a final `event: end` with the status). ' +
      'A batch that keeps `exceptions` stores only its unsolvable, unknown and error deals: those are its results. `?verdict=` keeps only some verdicts in either mode.',
    request: { params: BatchIdParamSchema, query: BatchResultsQuerySchema },
    responses: {
      200: {
        description: 'The results.',
        content: {
          'application/x-ndjson': { schema: BatchResultSchema },
          'text/event-stream': { schema: { type: 'string', description: '`event: result` / `id: <seq>` / `data: <BatchResult JSON>`; finally `event: end`.' } },
        },
      },
      400: errorContent('A bad query: `after`, `moves`, `follow`, or `verdict` (a list of verdicts; `solved` in a batch that keeps `exceptions`).'),
      404: errorContent('No batch of that id.'),
      ...ACCESS_RESPONSES,
    },
  });

  app.openapi(createBatchRoute, async (c) => {
    const status = await service.create(c.req.valid('json'), { owner: apiKeyNameOf(c) });
    c.header('Location', status.urls.self);
    return c.json(status, 202);
  }, requestHook(createBatchRoute));

  app.openapi(statusRoute, async (c) => {
    const { id } = c.req.valid('param');
    return c.json(requireStatus(await service.status(id), id), 200);
  }, requestHook(statusRoute));

  app.openapi(cancelRoute, async (c) => {
    const { id } = c.req.valid('param');
    return c.json(requireStatus(await service.cancel(id), id), 200);
  }, requestHook(cancelRoute));

  app.openapi(purgeRoute, async (c) => {
    const { id } = c.req.valid('param');
    return c.json(requireStatus(await service.purge(id), id), 200);
  }, requestHook(purgeRoute));

  app.openapi(resultsRoute, async (c) => {
    const { id } = c.req.valid('param');
    const query = c.req.valid('query');
    const state = await service.state(id);
    if (!state) throw notFound(id);
    const verdicts = query.verdict === undefined ? undefined : ([...new Set(query.verdict.split(','))] as BatchVerdict[]);
    if (verdicts?.includes('solved') && state.mode === 'exceptions') {
      throw new SolverError('invalid_request', 'verdict: this batch keeps exceptions only, so its solved deals are not stored (they are counted in its summary)', { path: 'verdict' });
    }
    const sse = /\btext\/event-stream\b/.test(c.req.header('accept') ?? '');
    const lastEventId = sse ? c.req.header('last-event-id') : undefined;
    const after = Number(query.after ?? (lastEventId && /^\d{1,15}$/.test(lastEventId) ? lastEventId : 0));
    const body = resultStream(service, id, {
      after,
      withMoves: query.moves === 'true',
      verdicts,
      follow: query.follow !== 'false',
      sse,
      signal: c.req.raw.signal,
    });
    const headers = {
      'Content-Type': sse ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    };
    // A stream, not a JSON body: the typed `c.json` does not apply.
    return new Response(body, { status: 200, headers }) as never;
  }, requestHook(resultsRoute));
}

function notFound(id: string): SolverError {
  return new SolverError('not_found', `no batch "${id}"`, { path: 'id' });
}

function requireStatus<T>(status: T | undefined, id: string): T {
  if (status === undefined) throw notFound(id);
  return status;
}

interface StreamOptions {
  after: number;
  withMoves: boolean;
  verdicts: readonly BatchVerdict[] | undefined;
  follow: boolean;
  sse: boolean;
  signal: AbortSignal;
}

/**
 * The results of batch `id` after `after`, then (with `follow`) each new one
 * as it is stored, until the batch is no longer running and everything is
 * sent, the client goes away, or the service closes.
 */
function resultStream(service: BatchBackend, id: string, options: StreamOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const format = options.sse
    ? (r: BatchResult) => `id: ${r.seq}\nevent: result\ndata: ${JSON.stringify(r)}\n\n`
    : (r: BatchResult) => `${JSON.stringify(r)}\n`;

  let cursor = options.after;
  let dirty = false;
  let wake: (() => void) | undefined;
  let finished = false;
  const unsubscribe = service.subscribe(id, () => {
    dirty = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  options.signal.addEventListener('abort', onAbort, { once: true });
  const cleanup = () => {
    finished = true;
    unsubscribe();
    options.signal.removeEventListener('abort', onAbort);
  };

  /** The next chunk to send, or null at the end. */
  const next = async (): Promise<string | null> => {
    for (;;) {
      // A closing service ends the stream (its database is about to close);
      // the client resumes from its cursor against the next process.
      if (finished || options.signal.aborted || service.closed) return null;
      // one slice of any stream a turn of the event loop (see the module comment)
      await nextSlice();
      if (finished || options.signal.aborted || service.closed) return null;
      dirty = false;
      const page = await service.page(id, { after: cursor, limit: PAGE, withMoves: options.withMoves, verdicts: options.verdicts });
      if (!page) return null;
      const rows = page.results;
      cursor = Math.max(cursor, page.scannedTo);
      if (rows.length > 0) return rows.map(format).join('');
      // a filter skipped what it read: read on
      if (cursor < page.stored) continue;
      const ended = page.status !== 'running';
      if (ended || !options.follow) {
        finished = true;
        if (!options.sse) return null;
        const end = { status: page.status, done: page.done, total: page.total };
        return `event: end\ndata: ${JSON.stringify(end)}\n\n`;
      }
      if (!dirty) {
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), HEARTBEAT_MS);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = undefined;
        if (timedOut && options.sse) return ': keep-alive\n\n';
      }
    }
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await next();
        if (chunk === null) {
          cleanup();
          controller.close();
        } else {
          controller.enqueue(encoder.encode(chunk));
        }
      } catch (err) {
        cleanup();
        controller.error(err);
      }
    },
    cancel() {
      cleanup();
    },
  });
}
