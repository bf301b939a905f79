/**
 * The service's configuration, read from environment variables and validated
 * with zod, so that a typo fails at start with a clear message instead of at
 * the first request. docs/configuration.md documents every
 * variable; keep the two in step.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `PORT` | 3000 | TCP port (0 = any free port) |
 * | `HOST` | 0.0.0.0 | interface to listen on: all of them, as a service in a container or behind a load balancer needs; set 127.0.0.1 to keep it local |
 * | `FRONTS` | `defaultFronts()`: 1 below 4 CPUs, then about one per 4 CPUs | HTTP front processes sharing the port (node:cluster), each with its share of THREADS and MAX_QUEUE; at most THREADS |
 * | `THREADS` | `os.availableParallelism()` | solver worker threads of the whole service (split among the fronts), at most 4 per CPU (`MAX_THREADS`) |
 * | `MAX_QUEUE` | 4 × THREADS | solves that may wait for a worker (split among the fronts); beyond that 503 `overloaded` |
 * | `BODY_LIMIT_BYTES` | 1048576 | largest request body (413 beyond) |
 * | `DEFAULT_MAX_STATES` | 5000000 | state budget when a request gives none |
 * | `MAX_STATES_CAP` | 50000000 | largest state budget a request may ask for |
 * | `DEFAULT_TIMEOUT_MS` | 30000 | deadline when a request gives none |
 * | `TIMEOUT_MS_CAP` | 120000 | largest deadline a request may ask for |
 * | `MAX_MEMORY_MB` | 3072 | engine memory cap per solve (16..4095); beyond it `unknown`/`memory` |
 * | `RECYCLE_MEMORY_MB` | 512 | a solver worker whose engine memory grew past this (a Wasm memory never shrinks) is replaced once its solve ends, giving the memory back; 0 = never |
 * | `STOP_GRACE_MS` | 2000 | a solve deaf to its stop flag this long after a cancel or its deadline has its worker terminated (at least 1000: a healthy engine may overrun its deadline by one growth of its position table, ~0.7 s at 10 million positions) |
 * | `HELPER_PASS_AFTER_MS` | 2000 | a Castle-family solve still searching this long may run its pooled pass on an idle worker beside the full search (the worker is given up to any other solve at once); 0 = never |
 * | `SOLVE_GROUP_MAX` | 16 | most single solves waiting in the queue that a freed worker takes as one task (at most its share of the queue); 1 = one a task |
 * | `INTERACTIVE_WAIT_MS` | 900 | an interactive solve (`POST /v1/solve`, `/v1/proofs`) not started this long after it arrived is refused (503, `Retry-After`); one more thread than `THREADS` takes them while long searches hold every worker (docs/operations.md "Fair under load"); 0 = neither |
 * | `SHUTDOWN_DRAIN_MS` | 5000, at most half of SHUTDOWN_TIMEOUT_MS | on SIGTERM/SIGINT, running solves may finish this long before they are cancelled |
 * | `SHUTDOWN_TIMEOUT_MS` | 10000 | on SIGTERM/SIGINT, exit forcibly after this long |
 * | `SHUTDOWN_READY_DELAY_MS` | 0 | on SIGTERM/SIGINT, keep accepting connections this long (answering `/readyz` and the API with 503) before the listener closes, for a load balancer to notice; at most half of SHUTDOWN_TIMEOUT_MS |
 * | `REQUEST_TIMEOUT_MS` | 30000 | most time a client may take to send a whole request (slow clients are cut off) |
 * | `API_KEYS` | (none) | comma-separated bearer tokens, each `token` or `name:token`; set = `/v1/*` needs `Authorization: Bearer <token>` |
 * | `API_KEYS_FILE` | (none) | a file with one key (`token` or `name:token`) per line, `#` comments; added to `API_KEYS` |
 * | `RATE_LIMIT_MAX` | 600 | requests per key per window when API keys are on (0 = no limit); beyond: 429 with `Retry-After` |
 * | `RATE_LIMIT_WINDOW_MS` | 60000 | the rate limit's window |
 * | `CORS_ORIGINS` | (none) | origins allowed to call the API from a browser: `*` or a comma-separated list; unset = same origin only |
 * | `METRICS_TOKEN` | (none) | when set, `GET /metrics` needs `Authorization: Bearer <token>` |
 * | `LOG_LEVEL` | info | `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent` |
 * | `BATCH_DB_PATH` | data/batches.sqlite | SQLite file of the batches and their results (`:memory:` = not durable) |
 * | `BATCH_CONCURRENCY` | THREADS (with several fronts: the batch front's threads) | most batch solves in flight at once (single solves always go first) |
 * | `BATCH_MAX_DEALS` | 1000000 | largest batch accepted that keeps every result (`"results": "exceptions"` has no such cap) |
 * | `BATCH_QUEUE_MAX_DEALS` | 5000000 | most deals queued (not yet finished) in running batches that keep every result, per API key when keys are on, overall otherwise; beyond: 429 `quota_exceeded` |
 * | `BATCH_QUEUE_MAX_CENSUS_DEALS` | 17179869184 (2^34) | the same for batches that keep exceptions only |
 * | `BATCH_RETENTION_HOURS` | 0 | the stored results of a batch that ended this long ago are deleted (its status and summary stay); 0 = kept until `DELETE /v1/batches/{id}/results` |
 * | `BATCH_BACKEND` | embedded | `embedded` (SQLite + this process's pool) or `redis` (BullMQ jobs run by `npm run worker` processes) |
 * | `REDIS_URL` | redis://127.0.0.1:6379 | the Redis server of the `redis` backend (API servers and workers) |
 * | `REDIS_PREFIX` | solver | prefix of every Redis key and of the BullMQ queue (several deployments may share a server) |
 * | `BATCH_CHUNK_DEALS` | 200 | deals per BullMQ job (`redis` backend) |
 * | `BATCH_CENSUS_CHUNK_DEALS` | 10000 | deals per BullMQ job of a batch that keeps exceptions (`redis` backend): a job is counted whole, so this is what a lost or drained worker redoes |
 * | `WORKER_CONCURRENCY` | THREADS | jobs a worker runs at once (one deal of each at a time) |
 * | `WORKER_LOCK_MS` | 30000 | BullMQ job lock: a dead worker's job is picked up again this long after its last renewal (plus up to `WORKER_STALLED_INTERVAL_MS`) |
 * | `WORKER_STALLED_INTERVAL_MS` | 15000 | how often workers look for stalled jobs |
 * | `WORKER_METRICS_PORT` | (none) | port of the worker's own `/metrics` (Prometheus); unset = none |
 * | `WORKER_NAME` | hostname:pid | the worker's name in metrics and logs |
 *
 * The offline tools (`npm run solve`, `npm run batch`) also read the deep
 * budget (`loadDeepBudget`): `DEEP_MAX_STATES` (2000000000), `DEEP_TIMEOUT_MS`
 * (1800000), `DEEP_MAX_MEMORY_MB` (4095, the most one wasm32 engine can have;
 * up to 16384 for the layered pass of the no-cell Castle games over several engines);
 * the service does not.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { issueMessage } from '../client-sdk/core/issue-messages.js';
import type { AppConfig } from './app.js';
import { DEEP_MEMORY_MB_MAX, DEFAULT_DEEP_BUDGET, DEFAULT_LIMITS_CONFIG, ENGINE_MEMORY_MB_MAX, type DeepBudget } from './limits.js';

/** One API key: the bearer token and the name logs and metrics show for it (never the token). */
export interface ApiKey {
  name: string;
  token: string;
}

/** Log levels of pino. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Everything `main.ts` needs to start the service. */
export interface ServiceConfig extends AppConfig {
  port: number;
  host: string;
  /**
   * HTTP front processes on the port (`FRONTS`); 1: this process serves
   * alone. `loadConfig` gives the service's totals of `threads`, `maxQueue`
   * and `batch.concurrency`; `frontConfig` one front's share.
   */
  fronts: number;
  threads: number;
  maxQueue: number;
  /** Engine memory cap per solve, bytes. */
  memoryLimitBytes: number;
  /** A worker whose engine grew past this is replaced after its solve, bytes; 0 = never. */
  recycleMemoryBytes: number;
  stopGraceMs: number;
  /** `PoolOptions.helperPassAfterMs` (server/pool.ts), ms; 0 = no helper pass. */
  helperPassAfterMs: number;
  /** `PoolOptions.groupMax` (server/pool.ts): most waiting single solves one task carries; 1 = no grouping. */
  groupMax: number;
  /** `PoolOptions.startWaitMs` of the API server's pool, and its lane on (server/pool/scheduler.ts), ms; 0 = neither. */
  interactiveWaitMs: number;
  shutdownDrainMs: number;
  shutdownTimeoutMs: number;
  /** Listener kept open (503s) after a shutdown signal, ms. */
  shutdownReadyDelayMs: number;
  requestTimeoutMs: number;
  /** Empty: no authentication. */
  apiKeys: ApiKey[];
  /** Per API key; `max` 0 = unlimited. Only applies when `apiKeys` is not empty. */
  rateLimit: { max: number; windowMs: number };
  /** `null`: no CORS headers (same origin only); `'*'`: any origin; else the allowed origins. */
  corsOrigins: '*' | string[] | null;
  metricsToken: string | null;
  logLevel: LogLevel;
  /** Batch analysis (server/batches/); `redis` only matters with backend `redis`. */
  batch: {
    dbPath: string;
    concurrency: number;
    maxDeals: number;
    /** Quotas on the deals queued in running batches (per API key, or overall). */
    quotas: { maxQueuedDeals: number; maxQueuedCensusDeals: number };
    /** Stored results are deleted this long after their batch ended, ms; 0 = kept. */
    retentionMs: number;
    backend: BatchBackendKind;
    redis: { url: string; prefix: string; chunkDeals: number; censusChunkDeals: number };
  };
  /** A batch worker process (`npm run worker`, backend `redis`). */
  worker: { concurrency: number; lockMs: number; stalledIntervalMs: number; metricsPort: number | null; name: string };
}

/** The batch queue backends. */
export const BATCH_BACKENDS = ['embedded', 'redis'] as const;
export type BatchBackendKind = (typeof BATCH_BACKENDS)[number];

/** Characters of an RFC 6750 bearer token (as hono's bearer-auth accepts them). */
const TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;
const KEY_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** Shortest token accepted: a guessable key is no key. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Most solver threads a pool may have: 4 per CPU. Solves are CPU-bound, so
 * threads beyond the CPUs only queue, and each holds its own engine memory
 * (tens of MB idle, up to MAX_MEMORY_MB in a hard search).
 */
export const MAX_THREADS = 4 * availableParallelism();

/**
 * Longest delay a Node timer takes (2^31 - 1 ms, about 24.8 days): a longer
 * one fires after 1 ms instead (TimeoutOverflowWarning), which would turn a
 * rate-limit window into a busy timer and a shutdown timeout into an
 * immediate exit. Every *_MS variable is capped here.
 */
const MAX_TIMER_MS = 2_147_483_647;

/** Most solves MAX_QUEUE lets wait (each waiting request holds its socket and body). */
const MAX_QUEUE_CAP = 1_000_000;

/**
 * CPUs one HTTP front serves by default (`defaultFronts`). One event loop
 * parses, validates and answers every request of its front: with `m` ms of
 * its CPU a request and `s` ms of the whole server's (event loop, workers,
 * V8's helper threads), it keeps `s / m` CPUs busy before it is the
 * bottleneck. For the cheapest requests (MS FreeCell deals, about 0.2 ms of
 * engine each) `s / m` is about 3 (0.19 and 0.56 ms at 8 connections), so
 * fronts of 4 CPUs let those use about three quarters of a big machine, and
 * requests of a few ms of engine all of it; each front keeps a pool of
 * about 4 threads, which balances long searches against quick ones better
 * than fronts of 1-2 threads (the primary hands out connections without
 * regard to a front's load).
 * docs/operations.md "Several fronts", docs/benchmarks.md "Several fronts"
 * (the projection for 16 and 64 CPUs).
 */
export const CPUS_PER_FRONT = 4;

/**
 * The default `FRONTS` on a machine of `cpus` CPUs for `threads` solver
 * threads: one front per `CPUS_PER_FRONT` CPUs, rounded down, at least 1 and
 * at most `threads` (each front needs a thread). 1 on this project's 2-CPU
 * machines, 4 on 16 CPUs, 16 on 64.
 */
export function defaultFronts(cpus: number, threads: number): number {
  return Math.max(1, Math.min(threads, Math.floor(cpus / CPUS_PER_FRONT)));
}

/**
 * Part `index` (0-based) of `total` split into `parts` near-equal whole
 * parts, the larger ones first: 5 in 2 → 3, 2.
 */
export function shareOf(total: number, parts: number, index: number): number {
  return Math.floor(total / parts) + (index < total % parts ? 1 : 0);
}

/** The front that runs the embedded backend's batches (its scheduler and SQLite store); the others pass batch calls to it. */
export const BATCH_FRONT = 0;

/**
 * The configuration front `index` of `config.fronts` runs with: its share
 * of `threads` and `maxQueue` (`shareOf`), and for the batch front
 * (`BATCH_FRONT`) a `batch.concurrency` of at most its threads (its pool
 * runs the embedded batches). With one front, `config` itself.
 */
export function frontConfig(config: ServiceConfig, index: number): ServiceConfig {
  if (config.fronts === 1) return config;
  const threads = shareOf(config.threads, config.fronts, index);
  return {
    ...config,
    threads,
    maxQueue: shareOf(config.maxQueue, config.fronts, index),
    batch: { ...config.batch, concurrency: Math.min(config.batch.concurrency, threads) },
  };
}

/** SHUTDOWN_DRAIN_MS when unset: 5 s, at most half of the shutdown timeout. */
function defaultDrainMs(shutdownTimeoutMs: number): number {
  return Math.min(5000, Math.floor(shutdownTimeoutMs / 2));
}

/** An integer environment variable within [min, max], with a default. */
function intVar(def: number, min: number, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .trim()
    .regex(/^\d+$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? def);
}

function envSchema() {
  return z
    .object({
      PORT: intVar(3000, 0, 65535),
      HOST: z.string().trim().min(1).default('0.0.0.0'),
      THREADS: intVar(availableParallelism(), 1, MAX_THREADS),
      FRONTS: z.string().trim().regex(/^\d+$/, { error: 'must be a whole number' }).transform(Number).pipe(z.number().int().min(1).max(MAX_THREADS)).optional(),
      MAX_QUEUE: z
        .string()
        .trim()
        .regex(/^\d+$/, { error: 'must be a whole number' })
        .transform(Number)
        .pipe(z.number().int().max(MAX_QUEUE_CAP))
        .optional(),
      BODY_LIMIT_BYTES: intVar(1024 * 1024, 1),
      DEFAULT_MAX_STATES: intVar(DEFAULT_LIMITS_CONFIG.defaultMaxStates, 1),
      MAX_STATES_CAP: intVar(DEFAULT_LIMITS_CONFIG.maxStatesCap, 1),
      DEFAULT_TIMEOUT_MS: intVar(DEFAULT_LIMITS_CONFIG.defaultTimeoutMs, 1, MAX_TIMER_MS),
      TIMEOUT_MS_CAP: intVar(DEFAULT_LIMITS_CONFIG.timeoutMsCap, 1, MAX_TIMER_MS),
      MAX_MEMORY_MB: intVar(3072, 16, 4095),
      RECYCLE_MEMORY_MB: intVar(512, 0, 4095),
      STOP_GRACE_MS: intVar(2000, 1000, 600_000),
      HELPER_PASS_AFTER_MS: intVar(2000, 0, 2_147_483_647),
      SOLVE_GROUP_MAX: intVar(16, 1, 256),
      INTERACTIVE_WAIT_MS: intVar(900, 0, MAX_TIMER_MS),
      SHUTDOWN_DRAIN_MS: z
        .string()
        .trim()
        .regex(/^\d+$/, { error: 'must be a whole number' })
        .transform(Number)
        .pipe(z.number().int().max(MAX_TIMER_MS))
        .optional(),
      SHUTDOWN_TIMEOUT_MS: intVar(10_000, 100, MAX_TIMER_MS),
      SHUTDOWN_READY_DELAY_MS: intVar(0, 0, MAX_TIMER_MS),
      REQUEST_TIMEOUT_MS: intVar(30_000, 1000, MAX_TIMER_MS),
      API_KEYS: z.string().optional(),
      API_KEYS_FILE: z.string().trim().optional(),
      RATE_LIMIT_MAX: intVar(600, 0),
      RATE_LIMIT_WINDOW_MS: intVar(60_000, 1000, MAX_TIMER_MS),
      CORS_ORIGINS: z.string().trim().optional(),
      METRICS_TOKEN: z
        .string()
        .trim()
        .regex(TOKEN, { error: 'must be a bearer token (letters, digits, ._~+/- and trailing =)' })
        .min(MIN_TOKEN_LENGTH, { error: `must be at least ${MIN_TOKEN_LENGTH} characters` })
        .optional(),
      LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
      BATCH_DB_PATH: z.string().trim().min(1).default('data/batches.sqlite'),
      BATCH_CONCURRENCY: z.string().trim().regex(/^\d+$/, { error: 'must be a whole number' }).transform(Number).pipe(z.number().int().min(1).max(1024)).optional(),
      BATCH_MAX_DEALS: intVar(1_000_000, 1),
      BATCH_QUEUE_MAX_DEALS: intVar(5_000_000, 1),
      BATCH_QUEUE_MAX_CENSUS_DEALS: intVar(2 ** 34, 1),
      BATCH_RETENTION_HOURS: intVar(0, 0, 24 * 365 * 100),
      BATCH_BACKEND: z.enum(BATCH_BACKENDS, { error: `must be one of ${BATCH_BACKENDS.join(', ')}` }).default('embedded'),
      REDIS_URL: z
        .string()
        .trim()
        .regex(/^rediss?:\/\/\S+$/, { error: 'must be a redis:// or rediss:// URL' })
        .default('redis://127.0.0.1:6379'),
      REDIS_PREFIX: z.string().trim().regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'must be 1-64 letters, digits, _ . -' }).default('solver'),
      BATCH_CHUNK_DEALS: intVar(200, 1, 100_000),
      BATCH_CENSUS_CHUNK_DEALS: intVar(10_000, 1, 10_000_000),
      WORKER_CONCURRENCY: z.string().trim().regex(/^\d+$/, { error: 'must be a whole number' }).transform(Number).pipe(z.number().int().min(1).max(1024)).optional(),
      WORKER_LOCK_MS: intVar(30_000, 1000, 3_600_000),
      WORKER_STALLED_INTERVAL_MS: intVar(15_000, 100, 3_600_000),
      WORKER_METRICS_PORT: z.string().trim().regex(/^\d+$/, { error: 'must be a whole number' }).transform(Number).pipe(z.number().int().min(0).max(65535)).optional(),
      WORKER_NAME: z.string().trim().regex(/^[A-Za-z0-9_.:@-]{1,128}$/, { error: 'must be 1-128 letters, digits, _ . : @ -' }).optional(),
    })
    .superRefine((env, ctx) => {
      if (env.FRONTS !== undefined && env.FRONTS > env.THREADS) {
        ctx.addIssue({ code: 'custom', path: ['FRONTS'], message: `must not exceed THREADS (${env.THREADS}): each front needs a solver thread` });
      }
      if (env.DEFAULT_MAX_STATES > env.MAX_STATES_CAP) {
        ctx.addIssue({ code: 'custom', path: ['DEFAULT_MAX_STATES'], message: `must not exceed MAX_STATES_CAP (${env.MAX_STATES_CAP})` });
      }
      if (env.DEFAULT_TIMEOUT_MS > env.TIMEOUT_MS_CAP) {
        ctx.addIssue({ code: 'custom', path: ['DEFAULT_TIMEOUT_MS'], message: `must not exceed TIMEOUT_MS_CAP (${env.TIMEOUT_MS_CAP})` });
      }
      const drainMs = env.SHUTDOWN_DRAIN_MS ?? defaultDrainMs(env.SHUTDOWN_TIMEOUT_MS);
      if (env.SHUTDOWN_READY_DELAY_MS > env.SHUTDOWN_TIMEOUT_MS / 2) {
        ctx.addIssue({ code: 'custom', path: ['SHUTDOWN_READY_DELAY_MS'], message: `must not exceed half of SHUTDOWN_TIMEOUT_MS (${env.SHUTDOWN_TIMEOUT_MS})` });
      } else if (env.SHUTDOWN_READY_DELAY_MS + drainMs > env.SHUTDOWN_TIMEOUT_MS) {
        ctx.addIssue({
          code: 'custom',
          path: ['SHUTDOWN_READY_DELAY_MS'],
          message: `with SHUTDOWN_DRAIN_MS (${drainMs}) must not exceed SHUTDOWN_TIMEOUT_MS (${env.SHUTDOWN_TIMEOUT_MS})`,
        });
      }
      if (env.SHUTDOWN_DRAIN_MS !== undefined && env.SHUTDOWN_DRAIN_MS > env.SHUTDOWN_TIMEOUT_MS) {
        ctx.addIssue({ code: 'custom', path: ['SHUTDOWN_DRAIN_MS'], message: `must not exceed SHUTDOWN_TIMEOUT_MS (${env.SHUTDOWN_TIMEOUT_MS})` });
      }
    });
}

/**
 * Parses API keys: entries separated by commas or line breaks, each `token`
 * or `name:token`; `#` starts a comment (in a keys file). An unnamed key is
 * named after a hash of its token (`key-` + 8 hex digits), so logs never
 * show a token.
 * @throws Error naming `source` and the entry (by position, never by token).
 */
export function parseApiKeys(text: string, source: string): ApiKey[] {
  const keys: ApiKey[] = [];
  const entries = text
    .split(/[\n,]/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line !== '');
  entries.forEach((entry, i) => {
    const colon = entry.indexOf(':');
    const name = colon >= 0 ? entry.slice(0, colon).trim() : '';
    const token = colon >= 0 ? entry.slice(colon + 1).trim() : entry;
    if (colon >= 0 && !KEY_NAME.test(name)) throw new Error(`${source}: key ${i + 1}: the name must be 1-64 letters, digits, _ . -`);
    if (!TOKEN.test(token)) throw new Error(`${source}: key ${i + 1}: a token is letters, digits and ._~+/- (and trailing =)`);
    if (token.length < MIN_TOKEN_LENGTH) throw new Error(`${source}: key ${i + 1}: a token must be at least ${MIN_TOKEN_LENGTH} characters`);
    keys.push({ name: name || `key-${createHash('sha256').update(token).digest('hex').slice(0, 8)}`, token });
  });
  return keys;
}

function parseOrigins(text: string | undefined): '*' | string[] | null {
  if (text === undefined || text === '') return null;
  if (text === '*') return '*';
  const origins = text.split(',').map((o) => o.trim()).filter((o) => o !== '');
  if (origins.includes('*')) throw new Error('CORS_ORIGINS: * (any origin) stands alone: give either * or a list of origins, not both');
  if (origins.length === 0) throw new Error(`CORS_ORIGINS: no origin in "${text}": give origins such as https://example.com, comma-separated, or leave it unset`);
  for (const origin of origins) {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new Error(`CORS_ORIGINS: "${origin}" is not an origin such as https://example.com`);
    }
    if (url.origin !== origin) throw new Error(`CORS_ORIGINS: "${origin}" is not an origin (scheme://host[:port], no path or slash)`);
  }
  return origins;
}

/**
 * An explicit `BATCH_DB_PATH` must be in a directory that exists: the store
 * creates only the default's `data/` (a fresh checkout has none), so that a
 * typo in a path is an error at start, not a new directory tree made with
 * the service's rights. Only the embedded backend opens the file.
 * @throws Error naming the variable and the missing directory.
 */
function checkBatchDbPath(given: string | undefined, path: string, backend: BatchBackendKind): void {
  if (given === undefined || backend !== 'embedded' || path === ':memory:') return;
  const fault = batchDbFolderFault(path);
  if (fault !== undefined) throw new Error(`BATCH_DB_PATH: ${fault}${fault.endsWith('create it first') ? ' (only the default data/ is created)' : ''}`);
}

/**
 * What is wrong with the folder of a batch database file (SQLite), or
 * undefined when it is an existing directory: the embedded store creates a
 * missing folder (server/batches/embedded/store.ts), so a typo in a path
 * the user chose (`BATCH_DB_PATH`, the batch tool's `--db`) is refused here
 * first rather than made into a new directory tree. `:memory:` has no folder.
 * @param path the database file, absolute or relative to the working directory.
 * @returns a sentence naming the folder, e.g. "the directory /x does not
 *   exist; create it first", without the option's name.
 */
export function batchDbFolderFault(path: string): string | undefined {
  if (path === ':memory:') return undefined;
  const dir = dirname(resolve(path));
  if (!existsSync(dir)) return `the directory ${dir} does not exist; create it first`;
  if (!statSync(dir).isDirectory()) return `${dir} is not a directory`;
  return undefined;
}

/**
 * `loadConfig()` for a process entry point (the service, the batch worker):
 * an invalid configuration prints its message on stderr and exits with 1.
 */
export function loadConfigOrExit(): ServiceConfig {
  try {
    return loadConfig();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}

/**
 * The variables of `env` read by `schema`, empty strings counting as unset,
 * with zod's messages in the house wording (`issueMessage`).
 * @throws Error `invalid configuration: ` listing every invalid variable
 *   (`NAME: message`, joined by `; `).
 */
function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const result = schema.safeParse(cleaned, { error: issueMessage });
  if (!result.success) throw new Error(`invalid configuration: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return result.data;
}

/**
 * Reads the configuration from `env` (default `process.env`). Empty strings
 * count as unset.
 * @throws Error listing every invalid variable, e.g. `PORT: must be a whole number`.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): ServiceConfig {
  const e = parseEnv(envSchema(), env);
  let apiKeys: ApiKey[];
  let corsOrigins: ServiceConfig['corsOrigins'];
  try {
    apiKeys = parseApiKeys(e.API_KEYS ?? '', 'API_KEYS');
    // Set but naming no key (",,,"): a typo, not "no authentication" (that is API_KEYS unset).
    if (e.API_KEYS !== undefined && apiKeys.length === 0) {
      throw new Error('API_KEYS: set but names no key: give tokens (or name:token) separated by commas, or leave it unset for no authentication');
    }
    if (e.API_KEYS_FILE !== undefined) {
      let text: string;
      try {
        text = readFileSync(e.API_KEYS_FILE, 'utf8');
      } catch (err) {
        throw new Error(`API_KEYS_FILE: cannot read ${e.API_KEYS_FILE} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      apiKeys.push(...parseApiKeys(text, 'API_KEYS_FILE'));
    }
    const tokens = new Set<string>();
    for (const key of apiKeys) {
      if (tokens.has(key.token)) throw new Error(`API_KEYS: the key named ${key.name} is given twice`);
      tokens.add(key.token);
    }
    corsOrigins = parseOrigins(e.CORS_ORIGINS);
    checkBatchDbPath(env.BATCH_DB_PATH?.trim() || undefined, e.BATCH_DB_PATH, e.BATCH_BACKEND);
  } catch (err) {
    throw new Error(`invalid configuration: ${(err as Error).message}`);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    fronts: e.FRONTS ?? defaultFronts(availableParallelism(), e.THREADS),
    threads: e.THREADS,
    maxQueue: e.MAX_QUEUE ?? 4 * e.THREADS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    limits: {
      defaultMaxStates: e.DEFAULT_MAX_STATES,
      maxStatesCap: e.MAX_STATES_CAP,
      defaultTimeoutMs: e.DEFAULT_TIMEOUT_MS,
      timeoutMsCap: e.TIMEOUT_MS_CAP,
    },
    memoryLimitBytes: e.MAX_MEMORY_MB * 1024 * 1024,
    recycleMemoryBytes: e.RECYCLE_MEMORY_MB * 1024 * 1024,
    stopGraceMs: e.STOP_GRACE_MS,
    helperPassAfterMs: e.HELPER_PASS_AFTER_MS,
    groupMax: e.SOLVE_GROUP_MAX,
    interactiveWaitMs: e.INTERACTIVE_WAIT_MS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS ?? defaultDrainMs(e.SHUTDOWN_TIMEOUT_MS),
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    shutdownReadyDelayMs: e.SHUTDOWN_READY_DELAY_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    apiKeys,
    rateLimit: { max: e.RATE_LIMIT_MAX, windowMs: e.RATE_LIMIT_WINDOW_MS },
    corsOrigins,
    metricsToken: e.METRICS_TOKEN ?? null,
    logLevel: e.LOG_LEVEL,
    batch: {
      dbPath: e.BATCH_DB_PATH,
      concurrency: e.BATCH_CONCURRENCY ?? e.THREADS,
      maxDeals: e.BATCH_MAX_DEALS,
      quotas: { maxQueuedDeals: e.BATCH_QUEUE_MAX_DEALS, maxQueuedCensusDeals: e.BATCH_QUEUE_MAX_CENSUS_DEALS },
      retentionMs: e.BATCH_RETENTION_HOURS * 3_600_000,
      backend: e.BATCH_BACKEND,
      redis: { url: e.REDIS_URL, prefix: e.REDIS_PREFIX, chunkDeals: e.BATCH_CHUNK_DEALS, censusChunkDeals: e.BATCH_CENSUS_CHUNK_DEALS },
    },
    worker: {
      concurrency: e.WORKER_CONCURRENCY ?? e.THREADS,
      lockMs: e.WORKER_LOCK_MS,
      stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS,
      metricsPort: e.WORKER_METRICS_PORT ?? null,
      name: e.WORKER_NAME ?? `${hostname()}:${process.pid}`,
    },
  };
}

/** Largest `DEEP_MAX_STATES`: the engine counts stored positions in a u32 and the glue reads them as i32. */
export const DEEP_MAX_STATES_LIMIT = 2_147_483_647;
/** Largest `DEEP_TIMEOUT_MS`: 7 days (the engine reads the clock, no timer is set, but a week is enough for a deal). */
export const DEEP_TIMEOUT_MS_LIMIT = 7 * 24 * 3_600_000;

/**
 * Reads the deep budget of the offline tools (server/limits.ts `DeepBudget`;
 * docs/configuration.md "Offline tools") from `env` (default `process.env`):
 * `DEEP_MAX_STATES` (1..2^31 − 1, default 2,000,000,000), `DEEP_TIMEOUT_MS`
 * (1..604,800,000, default 1,800,000 = 30 min), `DEEP_MAX_MEMORY_MB`
 * (16..16384, default 4095: one wasm32 engine's linear memory cannot pass
 * 4 GiB, and only the layered pass of the no-cell Castle games, spread over
 * several engines, uses more: server/limits.ts `DEEP_MEMORY_MB_MAX`). Empty strings count as unset. The service never reads these.
 * @throws Error listing every invalid variable, e.g. `DEEP_MAX_MEMORY_MB: must be at most 16384`.
 */
export function loadDeepBudget(env: Record<string, string | undefined> = process.env): DeepBudget {
  const e = parseEnv(
    z.object({
      DEEP_MAX_STATES: intVar(DEFAULT_DEEP_BUDGET.maxStates, 1, DEEP_MAX_STATES_LIMIT),
      DEEP_TIMEOUT_MS: intVar(DEFAULT_DEEP_BUDGET.timeoutMs, 1, DEEP_TIMEOUT_MS_LIMIT),
      DEEP_MAX_MEMORY_MB: intVar(DEFAULT_DEEP_BUDGET.maxMemoryMb, 16, DEEP_MEMORY_MB_MAX),
    }),
    env,
  );
  return { maxStates: e.DEEP_MAX_STATES, timeoutMs: e.DEEP_TIMEOUT_MS, maxMemoryMb: e.DEEP_MAX_MEMORY_MB };
}
