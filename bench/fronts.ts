/**
 * One HTTP front against several (`FRONTS`) on this machine: `POST
 * /v1/solve` of MS FreeCell deals 1..1000 in turn (every answer a full
 * solution) against the real server (`dist/server/main.js`, a child process
 * on 127.0.0.1 only), each front count in turn, rounds alternating so that
 * the machine's noise falls on all of them. Prints numbers; it is not a test.
 *
 *   npm run bench:fronts                                   # FRONTS 1 and 2, THREADS 2, c=8, 3 rounds of 10 s
 *   npm run bench:fronts -- --fronts 1,2 --connections 8,64 --duration 8 --rounds 2 --json out.json
 *
 * For each run: answered (2xx) requests a second, p50/p99 latency, and CPU
 * a request (Linux /proc, USER_HZ ticks): the whole server (the primary and
 * every front, all threads), the fronts' main threads (the event loops that
 * parse, validate and answer: `m` of docs/benchmarks.md "Several fronts"),
 * the primary's (it hands out connections), and this process (autocannon,
 * which shares the machine's cores with the server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Command } from 'commander';
import { positiveInt } from '../server/cli/usage.js';
import { freePort } from '../tests/helpers/server-process.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const HOST = '127.0.0.1';
const BODIES = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ game: 'freecell', deal: i + 1 }));
/** A comma-separated list of positive whole numbers (`1,2`). */
function intList(text: string): number[] {
  return text.split(',').map((part) => positiveInt(part.trim()));
}

/** Linux's USER_HZ: /proc's CPU times are in these ticks. */
const TICK_MS = 10;

interface Options {
  fronts: number[];
  threads: number;
  connections: number[];
  duration: number;
  rounds: number;
  json?: string;
}

interface Run {
  fronts: number;
  connections: number;
  round: number;
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** CPU ms per answered request. */
  server: number;
  frontMainThreads: number;
  primary: number;
  client: number;
  load: number;
}

/** utime + stime of a /proc stat line, ms. */
function statMs(path: string): number {
  try {
    const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0; // gone
  }
}

/** The processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const kids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (ppid === pid) kids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return kids;
}

/** CPU ms so far of the server: the whole tree, the fronts' main threads, the primary's (all threads) when there are fronts. */
function serverCpu(pid: number, fronts: number): { tree: number; mains: number; primary: number } {
  const frontPids = fronts > 1 ? childrenOf(pid) : [pid];
  const all = fronts > 1 ? [pid, ...frontPids] : frontPids;
  return {
    tree: all.reduce((sum, p) => sum + statMs(`/proc/${p}/stat`), 0),
    mains: frontPids.reduce((sum, p) => sum + statMs(`/proc/${p}/task/${p}/stat`), 0),
    primary: fronts > 1 ? statMs(`/proc/${pid}/stat`) : 0,
  };
}

function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function startServer(fronts: number, threads: number): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'dist/server/main.js')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST, LOG_LEVEL: 'warn', BATCH_DB_PATH: ':memory:', FRONTS: String(fronts), THREADS: String(threads), MAX_QUEUE: '256' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://${HOST}:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the server was not ready within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function load(url: string, connections: number, seconds: number) {
  let next = 0;
  return autocannon({
    url: `${url}/v1/solve`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections,
    duration: seconds,
    timeout: 60,
    requests: [{ setupRequest: (req) => ({ ...req, body: BODIES[next++ % BODIES.length] }) }],
  });
}

async function measure(fronts: number, connections: number, round: number, o: Options): Promise<Run> {
  const { child, url } = await startServer(fronts, o.threads);
  try {
    await load(url, connections, 2); // warm-up: JIT, engines, connections
    const before = serverCpu(child.pid!, fronts);
    const client0 = ownCpuMs();
    const result = await load(url, connections, o.duration);
    const after = serverCpu(child.pid!, fronts);
    const client = ownCpuMs() - client0;
    const ok = Number(result.statusCodeStats?.['200']?.count ?? 0);
    const per = (ms: number) => Math.round((ms / Math.max(1, ok)) * 1000) / 1000;
    return {
      fronts,
      connections,
      round,
      perSecond: Math.round(ok / o.duration),
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      server: per(after.tree - before.tree),
      frontMainThreads: per(after.mains - before.mains),
      primary: per(after.primary - before.primary),
      client: per(client),
      load: Math.round(loadavg()[0] * 10) / 10,
    };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

async function main(): Promise<void> {
  const o = new Command()
    .option('--fronts <list>', 'front counts to compare', intList, [1, 2])
    .option('--threads <n>', 'solver threads of the whole server', positiveInt, availableParallelism())
    .option('--connections <list>', 'autocannon connections', intList, [8])
    .option('--duration <s>', 'seconds a run', positiveInt, 10)
    .option('--rounds <n>', 'rounds, each running every front count', positiveInt, 3)
    .option('--json <file>', 'also write the runs as JSON')
    .parse()
    .opts<Options>();
  console.log(`fronts ${o.fronts.join(', ')}; THREADS=${o.threads}; ${availableParallelism()} CPUs; MS FreeCell 1..1000; ${o.duration} s runs`);
  console.log('round  fronts  conns  answered/s  p50 ms  p99 ms  CPU ms a request: server (front main threads, primary)  client  load');
  const runs: Run[] = [];
  for (let round = 1; round <= o.rounds; round++) {
    for (const connections of o.connections) {
      for (const fronts of round % 2 === 1 ? o.fronts : [...o.fronts].reverse()) {
        const r = await measure(fronts, connections, round, o);
        runs.push(r);
        console.log(
          `${String(round).padStart(5)}  ${String(fronts).padStart(6)}  ${String(connections).padStart(5)}  ${String(r.perSecond).padStart(10)}  ${String(r.p50).padStart(6)}  ${String(r.p99).padStart(6)}  ` +
            `${r.server.toFixed(3)} (${r.frontMainThreads.toFixed(3)}, ${r.primary.toFixed(3)})${r.non2xx ? `  non-2xx ${r.non2xx}` : ''}  ${r.client.toFixed(3)}  ${r.load}`,
        );
      }
    }
  }
  if (o.json) writeFileSync(o.json, JSON.stringify(runs, null, 2));
}

await main();
