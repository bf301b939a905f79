/**
 * The service's configuration, read from environment variables and validated
 * with zod, so that a typo fails at start with a clear message instead of at
 * the first request.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `PORT` | 3000 | TCP port (0 = any free port) |
 * | `HOST` | 0.0.0.0 | interface to listen on: all of them, as a service in a container or behind a load balancer needs; set 127.0.0.1 to keep it local |
 * | `THREADS` | `os.availableParallelism()` | solver worker threads |
 * | `MAX_QUEUE` | 4 × THREADS | solves that may wait for a worker; beyond that 503 `overloaded` |
 * | `BODY_LIMIT_BYTES` | 1048576 | largest request body (413 beyond) |
 * | `DEFAULT_MAX_STATES` | 5000000 | state budget when a request gives none |
 * | `MAX_STATES_CAP` | 50000000 | largest state budget a request may ask for |
 * | `DEFAULT_TIMEOUT_MS` | 30000 | deadline when a request gives none |
 * | `TIMEOUT_MS_CAP` | 120000 | largest deadline a request may ask for |
 * | `SHUTDOWN_TIMEOUT_MS` | 10000 | on SIGTERM/SIGINT, exit forcibly after this long |
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import type { AppConfig } from './app.js';

/** Everything `main.ts` needs to start the service. */
export interface ServiceConfig extends AppConfig {
  port: number;
  host: string;
  threads: number;
  maxQueue: number;
  shutdownTimeoutMs: number;
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
      THREADS: intVar(availableParallelism(), 1, 1024),
      MAX_QUEUE: z
        .string()
        .trim()
        .regex(/^\d+$/, { error: 'must be a whole number' })
        .transform(Number)
        .optional(),
      BODY_LIMIT_BYTES: intVar(1024 * 1024, 1),
      DEFAULT_MAX_STATES: intVar(5_000_000, 1),
      MAX_STATES_CAP: intVar(50_000_000, 1),
      DEFAULT_TIMEOUT_MS: intVar(30_000, 1),
      TIMEOUT_MS_CAP: intVar(120_000, 1),
      SHUTDOWN_TIMEOUT_MS: intVar(10_000, 0),
    })
    .superRefine((env, ctx) => {
      if (env.DEFAULT_MAX_STATES > env.MAX_STATES_CAP) {
        ctx.addIssue({ code: 'custom', path: ['DEFAULT_MAX_STATES'], message: `must not exceed MAX_STATES_CAP (${env.MAX_STATES_CAP})` });
      }
      if (env.DEFAULT_TIMEOUT_MS > env.TIMEOUT_MS_CAP) {
        ctx.addIssue({ code: 'custom', path: ['DEFAULT_TIMEOUT_MS'], message: `must not exceed TIMEOUT_MS_CAP (${env.TIMEOUT_MS_CAP})` });
      }
    });
}

/**
 * Reads the configuration from `env` (default `process.env`). Empty strings
 * count as unset.
 * @throws Error listing every invalid variable, e.g. `PORT: must be a whole number`.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): ServiceConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const result = envSchema().safeParse(cleaned);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const e = result.data;
  return {
    port: e.PORT,
    host: e.HOST,
    threads: e.THREADS,
    maxQueue: e.MAX_QUEUE ?? 4 * e.THREADS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    limits: {
      defaultMaxStates: e.DEFAULT_MAX_STATES,
      maxStatesCap: e.MAX_STATES_CAP,
      defaultTimeoutMs: e.DEFAULT_TIMEOUT_MS,
      timeoutMsCap: e.TIMEOUT_MS_CAP,
    },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
  };
}
