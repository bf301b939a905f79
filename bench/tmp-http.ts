// ad hoc: the service app in-process, fake or real solveRequest; main thread CPU per request under autocannon (child process)
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createServiceApp } from '../server/service.js';
import { createLogger } from '../server/logger.js';
import { createMetrics } from '../server/metrics.js';
import { ServiceState } from '../server/lifecycle.js';
import { loadEngineModule } from '../client-sdk/core/engine/index.js';
import { createPool } from '../server/pool.js';
const sched = () => Number(readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const mode = process.argv[2] ?? 'fake';
const bare = process.argv.includes('--bare');
const body = new Uint8Array(14000).fill(120);
const pool = mode === 'real' ? createPool({ module: await loadEngineModule(), threads: 2, filename: new URL('../dist/server/pool-worker.js', import.meta.url).pathname }) : undefined;
const logger = createLogger({ level: 'info', destination: { write: () => true } as never });
const metrics = createMetrics({ poolStats: () => pool?.stats() ?? ({} as never) });
const state = new ServiceState(); state.ready = true;
const app = createServiceApp({
  solve: async () => { throw new Error('no'); },
  solveRequest: pool ? (job, signal) => pool.solveRequest(job, signal) : async () => ({ body }),
  logger, ...(bare ? {} : { metrics, state }), poolStats: () => pool?.stats() ?? ({} as never), shed: () => false,
  app: { webRoot: null },
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((r) => setTimeout(r, 200));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/solve`;
const run = (d: string) => new Promise<{ total: number; duration: number }>((resolve) => fork('/tmp/i36/client.mjs', [url, '8', d]).on('message', (m) => resolve(m as never)));
await run('3');
const t0 = sched();
const res = await run('8');
console.log(mode, bare ? 'bare' : 'ops', 'main ms/req', ((sched() - t0) / res.total).toFixed(4), 'req/s', (res.total / res.duration).toFixed(0));
server.close(); await pool?.close(); process.exit(0);
