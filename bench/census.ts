/**
 * Census benchmark: a range of MS FreeCell deals counted through the API
 * (a batch that keeps exceptions only) and by fc-solve's range solver, one
 * after the other, on the same machine. Prints numbers; not a test.
 *
 *   npm run bench:census                              # MS 1..1,000,000
 *   npm run bench:census -- --to 10000000 --skip-fcsolve --json census-10m.json
 *
 * 1. api: the compiled server (`dist/server/main.js`, as `npm start` runs
 *    it; THREADS = the cores, a fresh SQLite file), `POST /v1/batches`
 *    with `"results": "exceptions"`, its status polled every second until
 *    `done`. Wall time from the batch's `createdAt` to its `finishedAt`;
 *    deals/s; the counts; the server's resident memory (VmRSS of its
 *    process, worker threads included) sampled every 250 ms (peak, and a
 *    timeline); the batch's storage (the SQLite file and its WAL when the
 *    batch is done, and the file alone once the server has stopped, which
 *    checkpoints the WAL into it);
 *    the exceptions read back (`GET .../results`: bytes and ms) and the
 *    unsolvable deals found; where the server's threads spent the batch
 *    (`threadShares`): each solver worker's time on a CPU and time waiting
 *    for one, the main thread's, and the other threads' together.
 * 2. fc-solve: `freecell-solver-range-parallel-solve <first> <last> 1 -l lg`
 *    in as many processes as cores, each over an equal share of the range,
 *    all at once; wall time until the last one exits; its verdicts counted
 *    from the output (bench/fcsolve-output.ts): `Unsolved` (its search
 *    ended without a solution), `Intractable` (an iteration limit stopped
 *    it), else solved. Skipped, and said so, when the range solver is not
 *    installed (Debian: `apt-get install freecell-solver-bin`).
 *
 * fc-solve's `-l lg` is not a complete search: its "unsolved" are not
 * proofs (a solvable deal among them has been seen), where the API's
 * `unsolvable` is, so the verdict counts are printed side by side, not
 * compared for equality.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import type { BatchStatus } from '../client-sdk/api/batch-schemas.js';
import { positiveInt } from '../server/cli/usage.js';
import { ROOT } from '../tests/helpers/paths.js';
import { startServer } from '../tests/helpers/server-process.js';
import { FcsRangeReader } from './fcsolve-output.js';
import { rssBytes, splitThreads, threadTimes, type ThreadTimes } from './proc-cpu.js';

interface Options {
  from: number;
  to: number;
  threads: number;
  processes: number;
  skipApi?: boolean;
  skipFcsolve?: boolean;
  json?: string;
}

const options = new Command()
  .name('bench:census')
  .option('--from <n>', 'first MS FreeCell deal', positiveInt, 1)
  .option('--to <n>', 'last MS FreeCell deal', positiveInt, 1_000_000)
  .option('--threads <n>', 'THREADS of the server', positiveInt, availableParallelism())
  .option('--processes <n>', 'fc-solve processes', positiveInt, availableParallelism())
  .option('--skip-api', 'skip the API census (1)')
  .option('--skip-fcsolve', 'skip fc-solve (2)')
  .option('--json <file>', 'also write the numbers to this file')
  .parse()
  .opts<Options>();

const RANGE_SOLVER = 'freecell-solver-range-parallel-solve';
const total = options.to - options.from + 1;
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const kib = (bytes: number) => (bytes / 1024).toFixed(0);

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

// ------------------------------------------------------------ 1. the API census

let storageAfterStop = 0;

async function apiCensus() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-census-'));
  const db = join(dir, 'census.sqlite');
  const server = await startServer({ BATCH_DB_PATH: db, THREADS: String(options.threads), LOG_LEVEL: 'warn' }, undefined, join(ROOT, 'dist/server/main.js'));
  const pid = server.child.pid!;
  const samples: [number, number][] = [];
  const rssAtStart = rssBytes(pid) ?? 0;
  try {
    const t0 = performance.now();
    const sampler = setInterval(() => {
      const rss = rssBytes(pid);
      if (rss !== null) samples.push([(performance.now() - t0) / 1000, rss]);
    }, 250);
    const threadsBefore = threadTimes(pid);
    const res = await fetch(`${server.url}/v1/batches`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ game: 'freecell', numbering: 'ms', deals: `${options.from}..${options.to}`, results: 'exceptions' }),
    });
    if (res.status !== 202) throw new Error(`POST /v1/batches: ${res.status} ${await res.text()}`);
    const { id } = (await res.json()) as BatchStatus;
    let st: BatchStatus;
    let lastPrint = 0;
    for (;;) {
      await sleep(1000);
      st = (await (await fetch(`${server.url}/v1/batches/${id}`)).json()) as BatchStatus;
      const now = (performance.now() - t0) / 1000;
      if (now - lastPrint >= 30 && st.status === 'running') {
        lastPrint = now;
        const rss = samples.at(-1)?.[1] ?? 0;
        console.log(`  ${now.toFixed(0)} s: ${st.done} deals, ${st.dealsPerSecond} deals/s, ETA ${st.etaSeconds ?? '-'} s, RSS ${mib(rss)} MiB; load ${load()}`);
      }
      if (st.status !== 'running') break;
    }
    const seconds = (Date.parse(st.finishedAt!) - Date.parse(st.createdAt)) / 1000;
    const threads = threadShares(pid, threadsBefore, threadTimes(pid), seconds * 1000);
    clearInterval(sampler);
    const storage = { sqlite: fileSize(db), wal: fileSize(`${db}-wal`), afterStop: 0 };
    const r0 = performance.now();
    const exceptionsRes = await fetch(`${server.url}/v1/batches/${id}/results`);
    const body = await exceptionsRes.text();
    const readMs = performance.now() - r0;
    const exceptions = body.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { deal: number; verdict: string });
    const peak = Math.max(...samples.map(([, rss]) => rss));
    return {
      deals: total,
      seconds: Math.round(seconds * 10) / 10,
      dealsPerSecond: Math.round(total / seconds),
      counts: st.counts,
      unsolvableDeals: exceptions.filter((r) => r.verdict === 'unsolvable').map((r) => r.deal).sort((a, b) => a - b),
      exceptions: exceptions.length,
      exceptionsReadBytes: Buffer.byteLength(body),
      exceptionsReadMs: Math.round(readMs),
      storageBytes: storage,
      rss: {
        atStartMiB: Number(mib(rssAtStart)),
        peakMiB: Number(mib(peak)),
        timeline: samples.filter((_, i) => i % Math.max(1, Math.floor(samples.length / 20)) === 0).map(([s, rss]) => [Math.round(s), Number(mib(rss))]),
      },
      threads,
      summary: st.summary,
      loadAverageAtEnd: load(),
    };
  } finally {
    await server.kill();
    storageAfterStop = fileSize(db) + fileSize(`${db}-wal`);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Where the server's threads spent a run of `wallMs` between two
 * `threadTimes` readings, in % of the wall time: the `options.threads`
 * threads with the most CPU time (the solver workers) each on a CPU and
 * runnable but waiting, the main thread (`pid`), and every other thread
 * (V8's and libuv's helpers) together.
 */
function threadShares(pid: number, before: Map<number, ThreadTimes>, after: Map<number, ThreadTimes>, wallMs: number) {
  const pct = (ms: number) => Math.round((1000 * ms) / wallMs) / 10;
  const spent = [...after].map(([tid, t]) => ({ tid, used: t.runMs - (before.get(tid)?.runMs ?? 0), waitMs: t.waitMs - (before.get(tid)?.waitMs ?? 0) }));
  const { main, workers, others } = splitThreads(spent, pid, options.threads);
  return {
    workers: workers.map((t) => ({ onCpuPct: pct(t.used), waitingPct: pct(t.waitMs) })),
    mainOnCpuPct: pct(main?.used ?? 0),
    otherThreads: others.length,
    othersOnCpuPct: pct(others.reduce((sum, t) => sum + t.used, 0)),
  };
}

// ------------------------------------------------------------ 2. fc-solve

/** Verdicts of one range-solver process over first..last, read as its output comes. */
async function fcsRange(first: number, last: number): Promise<Record<string, number>> {
  const child = spawn(RANGE_SOLVER, [String(first), String(last), '1', '-l', 'lg'], {
    env: { ...process.env, FREECELL_SOLVER_QUIET: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s.slice(0, 2000)));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  const reader = new FcsRangeReader(first);
  const counts: Record<string, number> = { solved: 0, unsolved: 0, intractable: 0 };
  for await (const line of createInterface({ input: child.stdout })) {
    const row = reader.line(line);
    if (row) counts[row.verdict]++;
  }
  const code = await exited;
  if (code !== 0) throw new Error(`${RANGE_SOLVER} ${first} ${last} exited with status ${code}: ${stderr.trim()}`);
  if (reader.lastDeal !== last) throw new Error(`${RANGE_SOLVER} output ends at board ${reader.lastDeal ?? 'none'}, not ${last}`);
  return counts;
}

async function fcsolve() {
  const n = Math.min(options.processes, total);
  const share = Math.ceil(total / n);
  const t0 = performance.now();
  const parts = await Promise.all(
    Array.from({ length: n }, (_, k) => {
      const first = options.from + k * share;
      return fcsRange(first, Math.min(options.to, first + share - 1));
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const counts: Record<string, number> = { solved: 0, unsolved: 0, intractable: 0 };
  for (const part of parts) for (const [k, v] of Object.entries(part)) counts[k] += v;
  return { processes: n, seconds: Math.round(seconds * 10) / 10, dealsPerSecond: Math.round(total / seconds), counts, loadAverageAtEnd: load() };
}

// ------------------------------------------------------------ main

console.log(`bench:census: MS FreeCell ${options.from}..${options.to} (${total} deals), ${availableParallelism()} cores; load average ${load()}`);
const report: Record<string, unknown> = { from: options.from, to: options.to, cores: availableParallelism(), started: new Date().toISOString() };

if (!options.skipApi) {
  console.log(`api: POST /v1/batches {"results": "exceptions"}, THREADS=${options.threads}, dist/server/main.js`);
  const api = await apiCensus();
  api.storageBytes.afterStop = storageAfterStop;
  report.api = api;
  console.log(
    `api:      ${api.seconds} s, ${api.dealsPerSecond} deals/s, ${JSON.stringify(api.counts)}; unsolvable: ${api.unsolvableDeals.join(', ') || 'none'}\n` +
      `          peak RSS ${api.rss.peakMiB} MiB (at start ${api.rss.atStartMiB}); storage at the end ${kib(api.storageBytes.sqlite)} KiB + WAL ${kib(api.storageBytes.wal)} KiB, ` +
      `after the server stopped ${kib(api.storageBytes.afterStop)} KiB; ` +
      `exceptions read: ${api.exceptions} lines, ${api.exceptionsReadBytes} bytes in ${api.exceptionsReadMs} ms; load ${api.loadAverageAtEnd}\n` +
      `          RSS over the run (s, MiB): ${api.rss.timeline.map(([s, m]) => `${s}:${m}`).join(' ')}\n` +
      `          threads, % of the wall time: workers on a CPU ${api.threads.workers.map((w) => w.onCpuPct).join(' / ')}, waiting for one ${api.threads.workers.map((w) => w.waitingPct).join(' / ')}; ` +
      `main thread on a CPU ${api.threads.mainOnCpuPct}; the ${api.threads.otherThreads} other threads ${api.threads.othersOnCpuPct} together`,
  );
}

if (!options.skipFcsolve) {
  if (spawnSync(RANGE_SOLVER, ['1', '1', '1'], { stdio: 'ignore' }).error) {
    console.log(`fc-solve: ${RANGE_SOLVER} is not installed (Debian: apt-get install freecell-solver-bin): skipped`);
    report.fcsolve = null;
  } else {
    const fcs = await fcsolve();
    report.fcsolve = fcs;
    console.log(`fc-solve: ${fcs.seconds} s, ${fcs.dealsPerSecond} deals/s in ${fcs.processes} processes (-l lg), ${JSON.stringify(fcs.counts)}; load ${fcs.loadAverageAtEnd}`);
  }
}
const api = report.api as { seconds: number } | undefined;
const fcs = report.fcsolve as { seconds: number } | undefined;
if (api && fcs) console.log(`wall time api / fc-solve: ${(api.seconds / fcs.seconds).toFixed(3)}`);
if (options.json) writeFileSync(options.json, JSON.stringify(report, null, 2));
