/**
 * Starts the service: configuration from the environment (`config.ts`), the
 * engine module compiled once, the worker pool, the HTTP server.
 *
 * Shutdown on SIGTERM/SIGINT: stop accepting connections (`server.close`),
 * stop the running solves and close the workers (`pool.close`), then exit; an
 * unref'd timer forces the exit after `SHUTDOWN_TIMEOUT_MS` if something
 * hangs. A second signal exits at once.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { loadEngineModule } from '../client-sdk/engine.js';
import { createApp } from './app.js';
import { loadConfig, type ServiceConfig } from './config.js';
import { createPool } from './pool.js';

let config: ServiceConfig;
try {
  config = loadConfig();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}

const module = await loadEngineModule();
const pool = createPool({ module, threads: config.threads, maxQueue: config.maxQueue });
const app = createApp({ solve: pool.solve, config, health: () => ({ pool: pool.stats() }) });

const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info: AddressInfo) => {
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
  console.log(`solitaire solver listening on http://${host}:${info.port} (${config.threads} solver threads, docs at /docs)`);
});

let stopping = false;
async function shutdown(signal: NodeJS.Signals): Promise<void> {
  if (stopping) {
    console.error(`${signal} again: exiting now`);
    process.exit(1);
  }
  stopping = true;
  console.log(`${signal}: shutting down`);
  setTimeout(() => {
    console.error(`shutdown took over ${config.shutdownTimeoutMs} ms: exiting`);
    process.exit(1);
  }, config.shutdownTimeoutMs).unref();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  try {
    await pool.close();
    await closed;
    process.exit(0);
  } catch (err) {
    console.error('error during shutdown:', err);
    process.exit(1);
  }
}

process.on('SIGTERM', (s) => void shutdown(s));
process.on('SIGINT', (s) => void shutdown(s));
