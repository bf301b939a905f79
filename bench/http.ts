/**
 * HTTP load benchmark (autocannon) of `POST /v1/solve` against the real
 * server (`dist/server/main.js`, a child process on 127.0.0.1 only). Prints
 * numbers; it is not a test. Bounded in time: about 2.5 minutes by default.
 *
 *   npm run bench:http                       # the full run
 *   npm run bench:http -- --quick            # 3 s phases, 10 s soak: a smoke run
 *   npm run bench:http -- --threads 2 --duration 10 --soak 60 --json out.json
 *
 * Workload: Microsoft FreeCell deals 1..1000 in turn (easy deals; the
 * default limits), every answer a full solution (~14 KB of JSON).
 *
 * Phases:
 *  1. direct: the same deals through the engine without HTTP: one engine on
 *     this thread (sequential), and the service's pool with 8 solves in flight;
 *  2. HTTP at concurrency 1, 8 and 64 (server with MAX_QUEUE=64, so that all
 *     64 are served): 2xx requests/s, p50/p99 latency;
 *  3. soak: concurrency 8 for `--soak` seconds, the server's RSS sampled
 *     every 5 s (start and end printed);
 *  4. overload: a fresh server with the default queue (4 × THREADS) offered
 *     4 × the measured throughput, open loop at a steady rate (see
 *     `openLoop`): the share of 503s, the goodput, and how fast the 503s come
 *     back; then a closed loop of 128 autocannon clients;
 *  5. refusals: a fresh server with MAX_QUEUE 8 and 64 clients that send
 *     again as soon as they are answered (a 503 comes back at once): the
 *     answered requests/s beside concurrency 8's on the same server, and
 *     what a refusal costs the server's main thread: its CPU over the run,
 *     less the answered requests at concurrency 8's main-thread CPU each,
 *     divided by the 503s; beside it, Node's own floor: a bare node:http
 *     server answering every request with the same 503, its thread's CPU
 *     an answer;
 *  6. with `--abuse <s>` (off by default): a fresh server with the
 *     defaults under the hostile mix of issue 36 — six `POST /v1/review`
 *     of Streets and Alleys 77 with 2,000 moves (each a Castle search a
 *     move), two `POST /v1/solve` of Streets and Alleys 77 and 523 with
 *     `maxStates` 50,000,000 and `timeoutMs` 120,000, and a Castle batch —
 *     while one client sends `POST /v1/solve` of MS #1, one at a time, for
 *     `<s>` seconds: each answer's status and time (p50/p99/max, how many
 *     took over 1 s), and how long each app request took against its
 *     deadline;
 *  7. the overhead ratio: HTTP requests/s ÷ direct deals/s, at the same
 *     parallelism (HTTP c=8 against the pool with 8 in flight) and at c=1
 *     (against one engine); and per CPU second (server process, all threads,
 *     against the direct pool's process), which does not depend on what else
 *     runs on the machine. Every phase prints the server's and the client's
 *     CPU time per request, and per answered request the server's main
 *     thread (its event loop) and all its threads, beside the engine's CPU
 *     a deal of phase 1 (one engine, same deals, same run).
 *
 * Client and server share this machine's cores: autocannon's work counts
 * against the HTTP numbers, as it would for a client on the same host.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Command } from 'commander';
import { Engine, loadEngineModule } from '../client-sdk/core/engine/index.js';
import { resolveDeal } from '../client-sdk/api/request.js';
import type { Deal } from '../client-sdk/core/rules.js';
import type { SolveLimits } from '../client-sdk/core/solve-types.js';
import { createPool } from '../server/pool.js';
import { securityHeaderValues } from '../server/middleware/security.js';
import { refusalAnswer } from '../server/refusal.js';
import { RETRY_AFTER_SECONDS } from '../server/app.js';
import { positiveInt } from '../server/cli/usage.js';
import { cpuReading, processCpuMs, rssBytes } from './proc-cpu.js';
import { freePort } from '../tests/helpers/server-process.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const HOST = '127.0.0.1';
const DEALS = Array.from({ length: 1000 }, (_, i) => i + 1);
const LIMITS: SolveLimits = { maxStates: 5_000_000, timeoutMs: 30_000 };

interface Options {
  threads: number;
  duration: number;
  soak: number;
  overload: number;
  abuse?: number;
  abuseOnly?: boolean;
  quick?: boolean;
  json?: string;
}

function parseOptions(): Options {
  const program = new Command()
    .name('bench:http')
    .description('HTTP load benchmark of POST /v1/solve against the real server on 127.0.0.1.')
    .option('--threads <n>', 'server solver threads', positiveInt, availableParallelism())
    .option('--duration <s>', 'seconds per concurrency level', positiveInt, 10)
    .option('--soak <s>', 'seconds of the soak', positiveInt, 60)
    .option('--overload <s>', 'seconds of the 4x overload', positiveInt, 15)
    .option('--abuse <s>', 'also run the hostile mix (reviews, long Castle solves, a Castle batch) for this many seconds while MS #1 is solved one at a time')
    .option('--abuse-only', 'run only the hostile mix (with --abuse, default 60 s)')
    .option('--quick', 'short phases (3 s, soak 10 s, overload 5 s): a smoke run')
    .option('--json <file>', 'also write the results to this file')
    .showHelpAfterError();
  program.parse();
  const o = program.opts<Options>();
  if (o.quick) Object.assign(o, { duration: 3, soak: 10, overload: 5 });
  return o;
}

// ---------------------------------------------------------------- helpers

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const mb = (bytes: number) => round(bytes / 2 ** 20);

/** CPU time of this process (the client, or the direct runs), milliseconds. */
function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

interface RunningServer {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Starts `dist/server/main.js` on a free loopback port and waits for /readyz. */
async function startServer(env: Record<string, string>, logFile: string): Promise<RunningServer> {
  const port = await freePort();
  const { writeSync, openSync, closeSync } = await import('node:fs');
  const fd = openSync(logFile, 'a');
  writeSync(fd, `--- server ${JSON.stringify(env)}\n`);
  const child = spawn(process.execPath, [join(ROOT, 'dist/server/main.js')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST, LOG_LEVEL: 'info', BATCH_DB_PATH: ':memory:', ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const url = `http://${HOST}:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}); see ${logFile}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`the server was not ready within 60 s; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * What a refused request costs Node itself: a bare `node:http` server (a
 * child process, no app, no gate) that answers every request with the
 * service's 503 (the same headers and body), loaded by 64 clients for
 * `seconds`. Returns its thread's CPU per answer, µs: the floor under the
 * service's refusal (server/refusal.ts adds the gate's lookup to it).
 */
async function bareRefusalFloor(seconds: number): Promise<number> {
  const { body, headers } = refusalAnswer(await securityHeaderValues(), RETRY_AFTER_SECONDS);
  const port = await freePort();
  const code = `const b = Buffer.from(process.env.BODY); const h = JSON.parse(process.env.HEADERS);
    require('node:http').createServer((req, res) => { res.writeHead(503, h); res.end(b); }).listen(Number(process.env.PORT), '${HOST}', () => console.log('listening'));`;
  const child = spawn(process.execPath, ['-e', code], { env: { ...process.env, BODY: body.toString(), HEADERS: JSON.stringify(headers), PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const bare: RunningServer = { child, url: `http://${HOST}:${port}`, stop: async () => void (child.kill('SIGTERM'), await exited) };
  try {
    const run = await load(bare, "Node's floor", 64, seconds);
    return (1000 * run.mainCpuMs) / Math.max(1, run.refused);
  } finally {
    await bare.stop();
  }
}

/** Bodies of the workload, in turn. */
const BODIES = DEALS.map((deal) => JSON.stringify({ game: 'freecell', deal, numbering: 'ms' }));

interface LoadResult {
  label: string;
  connections: number;
  seconds: number;
  okPerSec: number;
  totalPerSec: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  errors: number;
  /** Server CPU (all threads) per answered request, ms. */
  serverCpuMsPerRequest: number;
  /** Client (autocannon, this process) CPU per answered request, ms. */
  clientCpuMsPerRequest: number;
  /** 2xx answers per second of server CPU. */
  okPerServerCpuSecond: number;
  /** Answered (2xx) and refused (503) requests. */
  ok: number;
  refused: number;
  /** The server's main-thread CPU over the run, ms. */
  mainCpuMs: number;
  /** Per answered request: the server's main thread and all its threads, CPU ms. */
  mainCpuMsPerAnswered: number;
  serverCpuMsPerAnswered: number;
}

/** One autocannon run of POST /v1/solve cycling over the deals. */
async function load(server: RunningServer, label: string, connections: number, seconds: number, overallRate?: number): Promise<LoadResult> {
  const url = server.url;
  let next = 0;
  const pid = server.child.pid!;
  const serverCpu0 = cpuReading(pid);
  const clientCpu0 = ownCpuMs();
  const result = await autocannon({
    url: `${url}/v1/solve`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections,
    duration: seconds,
    timeout: 60,
    ...(overallRate ? { overallRate } : {}),
    requests: [
      {
        setupRequest: (req) => {
          req.body = BODIES[next++ % BODIES.length];
          return req;
        },
      },
    ],
  });
  const serverCpu1 = cpuReading(pid);
  const serverCpu = serverCpu1.all - serverCpu0.all;
  const mainCpu = serverCpu1.main - serverCpu0.main;
  const clientCpu = ownCpuMs() - clientCpu0;
  const statuses: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = Number(count);
  const ok = statuses['200'] ?? 0;
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    ok,
    refused: statuses['503'] ?? 0,
    mainCpuMs: mainCpu,
    mainCpuMsPerAnswered: round(mainCpu / Math.max(1, ok), 3),
    serverCpuMsPerAnswered: round(serverCpu / Math.max(1, ok), 3),
    serverCpuMsPerRequest: round(serverCpu / Math.max(1, total), 3),
    clientCpuMsPerRequest: round(clientCpu / Math.max(1, total), 3),
    okPerServerCpuSecond: round(ok / (serverCpu / 1000)),
    label,
    connections,
    seconds: result.duration,
    okPerSec: round(ok / result.duration),
    totalPerSec: round(total / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses,
    errors: result.errors,
  };
}

function printLoad(r: LoadResult): void {
  const other = Object.entries(r.statuses)
    .filter(([c]) => c !== '200')
    .map(([c, n]) => `${c}: ${n}`)
    .join(', ');
  console.log(
    `  ${r.label.padEnd(26)} ${String(r.okPerSec).padStart(7)} req/s (2xx)   p50 ${String(r.p50).padStart(5)} ms   p99 ${String(r.p99).padStart(5)} ms` +
      `   CPU/request: server ${r.serverCpuMsPerRequest} ms, client ${r.clientCpuMsPerRequest} ms` +
      `   CPU/answered: main thread ${r.mainCpuMsPerAnswered} ms, server ${r.serverCpuMsPerAnswered} ms (${round(r.serverCpuMsPerAnswered / engineCpuMsPerDeal, 2)}× the engine's)` +
      `${other ? `   [${other}]` : ''}${r.errors ? `   errors: ${r.errors}` : ''}`,
  );
}

/** What an open-loop run saw. */
interface OpenLoopResult {
  offeredPerSec: number;
  seconds: number;
  okPerSec: number;
  statuses: Record<string, number>;
  errors: number;
  /** Latency of the 2xx and of the 503 answers, from the intended send time, ms. */
  ok: { p50: number; p99: number };
  refused: { p50: number; p99: number };
  serverCpuMsPerRequest: number;
}

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);

/**
 * Open-loop load at a steady `rate` (requests spread evenly over every
 * second, whatever the answers): autocannon's `overallRate` sends each
 * connection's share in a burst at the start of every second, which empties
 * a bounded queue between bursts and measures the burst, not the overload.
 */
async function openLoop(server: RunningServer, rate: number, seconds: number): Promise<OpenLoopResult> {
  const { request, Agent } = await import('node:http');
  const agent = new Agent({ keepAlive: true, maxSockets: 1024 });
  const target = new URL(`${server.url}/v1/solve`);
  const statuses: Record<string, number> = {};
  const okLatency: number[] = [];
  const refusedLatency: number[] = [];
  let errors = 0;
  let next = 0;
  const inFlight = new Set<Promise<void>>();
  const fire = (due: number) => {
    const body = BODIES[next++ % BODIES.length];
    const p = new Promise<void>((resolve) => {
      const req = request(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.on('end', () => {
            const code = String(res.statusCode);
            statuses[code] = (statuses[code] ?? 0) + 1;
            (res.statusCode === 200 ? okLatency : refusedLatency).push(performance.now() - due);
            resolve();
          });
        },
      );
      req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
    inFlight.add(p);
    void p.then(() => inFlight.delete(p));
  };
  const serverCpu0 = processCpuMs(server.child.pid!);
  const start = performance.now();
  let sent = 0;
  for (;;) {
    const elapsed = performance.now() - start;
    if (elapsed >= seconds * 1000) break;
    const due = Math.floor((elapsed / 1000) * rate);
    for (; sent < due; sent++) fire(start + (sent / rate) * 1000);
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(inFlight);
  const serverCpu = processCpuMs(server.child.pid!) - serverCpu0;
  agent.destroy();
  okLatency.sort((a, b) => a - b);
  refusedLatency.sort((a, b) => a - b);
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  return {
    offeredPerSec: rate,
    seconds,
    okPerSec: round((statuses['200'] ?? 0) / seconds),
    statuses,
    errors,
    ok: { p50: round(percentile(okLatency, 50)), p99: round(percentile(okLatency, 99)) },
    refused: { p50: round(percentile(refusedLatency, 50), 2), p99: round(percentile(refusedLatency, 99), 2) },
    serverCpuMsPerRequest: round(serverCpu / Math.max(1, total), 3),
  };
}

// ---------------------------------------------------------------- direct

interface DirectResult {
  perSec: number;
  /** Deals per second of CPU (this process, all threads). */
  perCpuSecond: number;
  cpuMsPerDeal: number;
}

/** One engine on this thread, sequentially, for about `seconds`. */
function directSingle(deals: Deal[], seconds: number): DirectResult {
  const engine = Engine.instantiate(moduleCache!);
  for (const d of deals.slice(0, 20)) engine.solve(d, { limits: LIMITS }); // warm
  let n = 0;
  const cpu0 = ownCpuMs();
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) engine.solve(deals[n++ % deals.length], { limits: LIMITS });
  const cpu = ownCpuMs() - cpu0;
  return { perSec: n / ((performance.now() - start) / 1000), perCpuSecond: n / (cpu / 1000), cpuMsPerDeal: cpu / n };
}

/** The service's pool with `inFlight` solves in flight, for about `seconds`. */
async function directPool(deals: Deal[], threads: number, inFlight: number, seconds: number): Promise<DirectResult> {
  const pool = createPool({ module: moduleCache!, threads, maxQueue: inFlight });
  await pool.warmUp(deals[0]);
  let n = 0;
  let done = 0;
  const end = performance.now() + seconds * 1000;
  const cpu0 = ownCpuMs();
  const start = performance.now();
  const lane = async () => {
    while (performance.now() < end) {
      await pool.solve(deals[n++ % deals.length], LIMITS);
      done++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  const cpu = ownCpuMs() - cpu0;
  const perSec = done / ((performance.now() - start) / 1000);
  await pool.close();
  return { perSec, perCpuSecond: done / (cpu / 1000), cpuMsPerDeal: cpu / done };
}

let moduleCache: WebAssembly.Module | undefined;
/** The engine's CPU a deal in this run (phase 1, one engine on this thread), ms: what the server's CPU per answer is set beside. */
let engineCpuMsPerDeal = NaN;

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const o = parseOptions();
  const dir = mkdtempSync(join(tmpdir(), 'bench-http-'));
  const logFile = join(dir, 'server.log');
  const load0 = loadavg();
  console.log(`bench:http — POST /v1/solve, MS FreeCell deals 1..1000 in turn; ${o.threads} solver threads; ${availableParallelism()} cores; server log ${logFile}`);
  // Other work on the machine takes cores from both sides: the wall-clock numbers move with it, the CPU ones much less.
  console.log(`load average at start: ${load0.map((x) => round(x, 2)).join(' ')}\n`);
  if (o.abuseOnly) {
    await abusePhase(o.threads, o.abuse ?? 60, logFile);
    return;
  }

  moduleCache = await loadEngineModule();
  const deals = DEALS.map((deal) => resolveDeal({ game: 'freecell', deal, numbering: 'ms' }));

  console.log('direct (no HTTP):');
  const singleRun = directSingle(deals, o.duration);
  const single = singleRun.perSec;
  engineCpuMsPerDeal = singleRun.cpuMsPerDeal;
  console.log(`  one engine, this thread       ${round(single)} deals/s   CPU/deal ${round(singleRun.cpuMsPerDeal, 3)} ms`);
  const pooledRun = await directPool(deals, o.threads, 8, o.duration);
  const pooled = pooledRun.perSec;
  console.log(`  pool, 8 in flight             ${round(pooled)} deals/s   CPU/deal ${round(pooledRun.cpuMsPerDeal, 3)} ms\n`);

  console.log('HTTP (server MAX_QUEUE=64):');
  const server = await startServer({ THREADS: String(o.threads), MAX_QUEUE: '64' }, logFile);
  const levels: LoadResult[] = [];
  let soak: { start: number; end: number; samples: number[]; result: LoadResult };
  try {
    await load(server, 'warm-up', 8, Math.min(3, o.duration));
    for (const c of [1, 8, 64]) {
      const r = await load(server, `concurrency ${c}`, c, o.duration);
      levels.push(r);
      printLoad(r);
    }

    console.log(`\nsoak (concurrency 8, ${o.soak} s):`);
    const samples = [(rssBytes(server.child.pid!) ?? NaN)];
    const sampler = setInterval(() => samples.push((rssBytes(server.child.pid!) ?? NaN)), 5000);
    const result = await load(server, `soak c=8 ${o.soak}s`, 8, o.soak);
    clearInterval(sampler);
    samples.push((rssBytes(server.child.pid!) ?? NaN));
    soak = { start: samples[0], end: samples[samples.length - 1], samples, result };
    printLoad(result);
    console.log(`  server RSS: start ${mb(soak.start)} MB, end ${mb(soak.end)} MB, max ${mb(Math.max(...samples))} MB (samples every 5 s: ${samples.map(mb).join(' ')})`);
  } finally {
    await server.stop();
  }

  const capacity = levels[1].okPerSec;
  const offered = Math.max(1, Math.round(4 * capacity));
  console.log(`\noverload (default queue: MAX_QUEUE = 4 × THREADS = ${4 * o.threads}; offered ${offered} req/s = 4 × ${capacity}):`);
  const overloadServer = await startServer({ THREADS: String(o.threads) }, logFile);
  let overload: OpenLoopResult;
  let fast503: LoadResult;
  try {
    await load(overloadServer, 'warm-up', 8, Math.min(3, o.duration));
    overload = await openLoop(overloadServer, offered, o.overload);
    const other = Object.entries(overload.statuses)
      .filter(([c]) => c !== '200')
      .map(([c, n]) => `${c}: ${n}`)
      .join(', ');
    console.log(
      `  open loop ${offered} req/s, ${o.overload} s    ${overload.okPerSec} req/s (2xx)   2xx p50 ${overload.ok.p50} ms, p99 ${overload.ok.p99} ms;` +
        ` 503 p50 ${overload.refused.p50} ms, p99 ${overload.refused.p99} ms   server CPU/request ${overload.serverCpuMsPerRequest} ms   [${other}]${overload.errors ? `   errors: ${overload.errors}` : ''}`,
    );
    // A closed loop far beyond the queue: 128 clients each sending again as soon as answered.
    fast503 = await load(overloadServer, 'closed loop, 128 clients', 128, Math.min(5, o.overload));
    printLoad(fast503);
  } finally {
    await overloadServer.stop();
  }
  const total = Object.values(overload.statuses).reduce((a, b) => a + b, 0);
  const share503 = total > 0 ? (overload.statuses['503'] ?? 0) / total : 0;
  console.log(`  503 share under 4x overload: ${round(share503 * 100)} % (goodput ${overload.okPerSec} req/s vs capacity ${capacity})`);

  console.log(`\nrefusals (MAX_QUEUE 8; 64 clients sending again as soon as answered):`);
  const refusalServer = await startServer({ THREADS: String(o.threads), MAX_QUEUE: '8' }, logFile);
  let refusal: { c8: LoadResult; c64: LoadResult; mainUsPerRefusal: number; serverUsPerRefusal: number; answeredRatio: number; bareNodeUsPerRefusal: number };
  try {
    await load(refusalServer, 'warm-up', 8, Math.min(3, o.duration));
    const c8 = await load(refusalServer, 'concurrency 8', 8, o.duration);
    printLoad(c8);
    const c64 = await load(refusalServer, 'concurrency 64', 64, o.duration);
    printLoad(c64);
    // the answered requests at concurrency 8's CPU each; the rest is the refusals'
    const mainUsPerRefusal = (1000 * (c64.mainCpuMs - c64.ok * c8.mainCpuMsPerAnswered)) / Math.max(1, c64.refused);
    const serverUsPerRefusal = (1000 * (c64.serverCpuMsPerRequest * (c64.ok + c64.refused) - c64.ok * c8.serverCpuMsPerAnswered)) / Math.max(1, c64.refused);
    const answeredRatio = c64.okPerSec / c8.okPerSec;
    console.log(
      `  ${c64.refused} refusals (${round(c64.refused / c64.seconds)}/s): main thread ${round(mainUsPerRefusal, 1)} µs a refusal, server ${round(serverUsPerRefusal, 1)} µs;` +
        ` answered ${c64.okPerSec} req/s at c=64 = ${round(answeredRatio, 2)} × c=8's ${c8.okPerSec} (the clients share the cores: client CPU ${c64.clientCpuMsPerRequest} ms a request)`,
    );
    const floor = await bareRefusalFloor(o.duration);
    console.log(`  Node's own floor: a bare node:http server answering every request with the same 503 (headers and body), 64 clients: ${round(floor, 1)} µs of its thread an answer`);
    refusal = { c8, c64, mainUsPerRefusal, serverUsPerRefusal, answeredRatio, bareNodeUsPerRefusal: floor };
  } finally {
    await refusalServer.stop();
  }

  const abuse = o.abuse ? await abusePhase(o.threads, o.abuse, logFile) : undefined;

  const ratio8 = levels[1].okPerSec / pooled;
  const ratio1 = levels[0].okPerSec / single;
  const cpuRatio = levels[1].okPerServerCpuSecond / pooledRun.perCpuSecond;
  console.log('\noverhead ratio (HTTP req/s ÷ direct deals/s):');
  console.log(`  c=8 vs pool with 8 in flight:  ${round(ratio8, 3)}   (${levels[1].okPerSec} / ${round(pooled)})`);
  console.log(`  c=1 vs one engine, sequential: ${round(ratio1, 3)}   (${levels[0].okPerSec} / ${round(single)})`);
  console.log(
    `  per CPU second (server only, c=8 vs pool): ${round(cpuRatio, 3)}   (${levels[1].okPerServerCpuSecond} / ${round(pooledRun.perCpuSecond)}; ` +
      `server ${levels[1].serverCpuMsPerRequest} ms vs direct ${round(pooledRun.cpuMsPerDeal, 3)} ms CPU per solve; the client adds ${levels[1].clientCpuMsPerRequest} ms)`,
  );

  console.log(`\nload average at end: ${loadavg().map((x) => round(x, 2)).join(' ')}`);

  if (o.json) {
    writeFileSync(
      o.json,
      JSON.stringify({ options: o, direct: { single: singleRun, pooled: pooledRun }, levels, soak: soak!, overload, fast503, share503, refusal, abuse, ratio8, ratio1, cpuRatio }, null, 2),
    );
    console.log(`\nresults written to ${o.json}`);
  }
}

/** What `abusePhase` measured: MS #1's answers meanwhile, and each hostile request's time. */
interface AbuseResult {
  probes: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
  over1s: number;
  hostile: { what: string; status: number; ms: number }[];
}

/**
 * Phase 6: the hostile mix on a fresh server with the defaults while MS #1
 * is solved one request at a time for `seconds`. The reviews' and long
 * solves' answers (or refusals) are awaited at the end and their times
 * printed; the batch is cancelled.
 */
async function abusePhase(threads: number, seconds: number, logFile: string): Promise<AbuseResult> {
  console.log(`\nabuse (defaults; 6 reviews of Streets and Alleys 77 with 2,000 moves, 2 long Castle solves, a Castle batch; MS #1 one at a time for ${seconds} s):`);
  const server = await startServer({ THREADS: String(threads) }, logFile);
  const post = async (path: string, body: unknown) => {
    const t = performance.now();
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, ms: performance.now() - t, text };
  };
  try {
    const reviewMoves = ['34', ...Array.from({ length: 999 }, () => ['47', '74']).flat(), '47'];
    const hostile: Promise<{ what: string; status: number; ms: number }>[] = [];
    const track = (what: string, p: Promise<{ status: number; ms: number }>) => hostile.push(p.then(({ status, ms }) => ({ what, status, ms })));
    for (let i = 0; i < 6; i++) track(`review ${i + 1}`, post('/v1/review', { game: 'streets_and_alleys', deal: 77, numbering: 'pysolfc', moves: reviewMoves }));
    for (const deal of [77, 523]) track(`solve S&A ${deal}, 50M positions, 120 s`, post('/v1/solve', { game: 'streets_and_alleys', deal, numbering: 'pysolfc', limits: { maxStates: 50_000_000, timeoutMs: 120_000 } }));
    const batch = await post('/v1/batches', { game: 'streets_and_alleys', numbering: 'pysolfc', deals: '1..2000' });
    const batchId = (JSON.parse(batch.text) as { id?: string }).id;
    await new Promise((r) => setTimeout(r, 1000));
    const times: number[] = [];
    const statuses: Record<string, number> = {};
    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      const r = await post('/v1/solve', { game: 'freecell', deal: 1, numbering: 'ms' });
      times.push(r.ms);
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      if (r.status === 503) await new Promise((res) => setTimeout(res, 50));
    }
    if (batchId) await fetch(`${server.url}/v1/batches/${batchId}`, { method: 'DELETE' });
    const sorted = [...times].sort((a, b) => a - b);
    const result: AbuseResult = {
      probes: times.length,
      statuses,
      p50: round(percentile(sorted, 50)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted[sorted.length - 1] ?? NaN),
      over1s: times.filter((t) => t > 1000).length,
      hostile: (await Promise.all(hostile)).map((h) => ({ ...h, ms: Math.round(h.ms) })),
    };
    console.log(`  MS #1: ${result.probes} requests ${JSON.stringify(statuses)}; p50 ${result.p50} ms, p99 ${result.p99} ms, max ${result.max} ms; over 1 s: ${result.over1s}`);
    for (const h of result.hostile) console.log(`  ${h.what}: ${h.status} after ${h.ms} ms`);
    return result;
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
