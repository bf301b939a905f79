/**
 * The SDK: remote client against a real server (child process, loopback
 * port) and the local solver give the same verdicts and checked solutions;
 * retries and the typed error; the results iterator resumes a broken stream;
 * hints from a position in the middle of a game; the SDK examples of the README and docs/sdk.md
 * run; the publishable package imports by name with its types.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyMove,
  checkSolution,
  createClient,
  createLocalSolver,
  formatBoard,
  hint,
  resolveDeal,
  ServiceError,
  SolverError,
  type LocalSolver,
  type SolveResponse,
} from '../../client-sdk/sdk/index.js';
import { checkCertificate } from '../../client-sdk/core/proof/check.js';
import { checkMove } from '../../client-sdk/core/verify.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import { ROOT, REFERENCE_VERDICTS } from '../helpers/paths.js';

const VERDICTS = join(REFERENCE_VERDICTS, 'seahaven_towers.tsv');

let server: ServerProcess;
let local: LocalSolver;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sdk-test-'));
  [server, local] = await Promise.all([startServer({ BATCH_DB_PATH: join(dir, 'batches.sqlite') }), createLocalSolver()]);
});
afterAll(async () => {
  await server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('the client: POST /v1/proofs', () => {
  it('gives the certificate bytes of an unsolvable deal, and the JSON answer of a solvable one', async () => {
    const client = createClient({ baseUrl: server.url });
    const proof = await client.proof({ game: 'freecell', deal: 11982 });
    expect(proof.kind).toBe('certificate');
    if (proof.kind !== 'certificate') return;
    expect([proof.certificate[0], proof.certificate[1]]).toEqual([0x1f, 0x8b]); // gzip
    expect(proof.positions).toBeGreaterThan(1000);
    expect(proof.fingerprint).toMatch(/^[0-9a-f]+$/);
    const solvable = await client.proof({ game: 'freecell', deal: 1 });
    expect(solvable.kind).toBe('answer');
    if (solvable.kind === 'answer') expect(solvable.response.verdict).toBe('solved');
    await expect(client.proof({ game: 'freecell', deal: 0 })).rejects.toMatchObject({ code: 'deal_out_of_range', status: 400 });
  });
});

describe('remote and local solver', () => {
  it('give the same verdicts and the same checked solutions on 100 deals', async () => {
    const client = createClient({ baseUrl: server.url });
    const reference = new Map(
      readFileSync(VERDICTS, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split('\t') as [string, string]),
    );
    const requests = Array.from({ length: 100 }, (_, i) => ({ game: 'seahaven_towers', deal: i + 1, limits: { maxStates: 3_000_000, timeoutMs: 120_000 } }));
    const remote: SolveResponse[] = new Array(100);
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < requests.length) {
          const i = next++;
          remote[i] = await client.solve(requests[i]);
        }
      }),
    );
    const counts: Record<string, number> = {};
    for (let i = 0; i < 100; i++) {
      const mine = await local.solve(requests[i]);
      const theirs = remote[i];
      expect(mine.verdict, `deal ${i + 1}`).toBe(theirs.verdict);
      expect(mine.board).toBe(theirs.board);
      expect(mine.moves).toEqual(theirs.moves);
      expect(mine.notation).toEqual(theirs.notation);
      counts[mine.verdict] = (counts[mine.verdict] ?? 0) + 1;
      const expected = reference.get(String(i + 1));
      if (mine.verdict === 'solved') {
        const deal = resolveDeal({ game: 'seahaven_towers', deal: i + 1 });
        expect(checkSolution(deal.rules, deal.layout, mine.moves).ok).toBe(true);
        expect(expected).not.toBe('unsolvable');
      }
      if (mine.verdict === 'unsolvable') expect(expected).not.toBe('solvable');
    }
    expect(counts.solved).toBeGreaterThan(80);
    expect(counts.unsolvable).toBeGreaterThan(0);
  });

  it('give an unsolvable answer its certificate with proof: true, the same proof, and it passes the checker', async () => {
    const client = createClient({ baseUrl: server.url });
    const req = { game: 'seahaven_towers', deal: 107, numbering: 'pysolfc' as const, proof: true };
    const [mine, theirs] = [await local.solve(req), await client.solve(req)];
    expect(mine.verdict).toBe('unsolvable');
    const { certificate: localCertificate, ...localSummary } = mine.proof!;
    const { certificate: remoteCertificate, ...remoteSummary } = theirs.proof!;
    expect(localSummary).toEqual(remoteSummary);
    expect(localCertificate).toMatchObject({ included: true, encoding: 'base64' });
    expect(remoteCertificate).toMatchObject({ included: true });
    const result = checkCertificate(Buffer.from(localCertificate?.data ?? '', 'base64'));
    expect(result).toMatchObject({ ok: true, positions: mine.proof!.positions });
  });

  it('answer bad input with the same error code and location', async () => {
    const client = createClient({ baseUrl: server.url });
    const bad = { game: 'freecell', board: 'JD KD 2S XX\n' };
    const remoteErr = await client.solve(bad).catch((e: unknown) => e);
    const localErr = await local.solve(bad).catch((e: unknown) => e);
    expect(remoteErr).toBeInstanceOf(ServiceError);
    expect(remoteErr).toBeInstanceOf(SolverError);
    expect(localErr).toBeInstanceOf(SolverError);
    const r = remoteErr as ServiceError;
    const l = localErr as SolverError;
    expect(r.code).toBe('malformed_board');
    expect(r.status).toBe(400);
    expect(r.code).toBe(l.code);
    expect(r.location).toEqual(l.location);
    await expect(client.solve({ game: 'no_such_game', deal: 1 })).rejects.toMatchObject({ code: 'unknown_game', status: 404 });
    await expect(local.solve({ game: 'freecell', deal: 1, limits: { maxStates: 0 } })).rejects.toMatchObject({ code: 'bad_limits' });
  });
});

describe('client retries and errors (fake fetch)', () => {
  const ok = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  const err = (status: number, code: string, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify({ error: { code, message: code } }), { status, headers: { 'content-type': 'application/json', ...headers } });
  /** A client of a fake service whose every request gets `answer()` (or its throw), `retries` retries 1 ms apart; `calls` counts the requests. */
  const countingClient = (retries: number, answer: () => Response) => {
    const counted = { calls: 0, client: undefined as unknown as ReturnType<typeof createClient> };
    counted.client = createClient({
      baseUrl: 'http://solver.test',
      retries,
      retryBaseMs: 1,
      fetch: async () => {
        counted.calls++;
        return answer();
      },
    });
    return counted;
  };

  it('retries 429 and 503 after Retry-After, then succeeds', async () => {
    const games = { games: [] };
    const answers = [err(503, 'overloaded', { 'retry-after': '0' }), err(429, 'rate_limited', { 'retry-after': new Date(Date.now() - 1000).toUTCString() }), ok(games)];
    const seen: RequestInit[] = [];
    const client = createClient({
      baseUrl: 'http://solver.test/',
      apiKey: 'k'.repeat(20),
      fetch: async (_url, init) => {
        seen.push(init!);
        return answers.shift()!;
      },
    });
    expect(await client.games()).toEqual(games);
    expect(seen).toHaveLength(3);
    expect((seen[0].headers as Record<string, string>).authorization).toBe(`Bearer ${'k'.repeat(20)}`);
  });

  it('gives up after `retries` with the service code and Retry-After', async () => {
    const fake = countingClient(2, () => err(503, 'overloaded', { 'retry-after': '0' }));
    const e = (await fake.client.solve({ game: 'freecell', deal: 1 }).catch((x: unknown) => x)) as ServiceError;
    expect(e).toBeInstanceOf(ServiceError);
    expect(e).toMatchObject({ code: 'overloaded', status: 503, retryAfterMs: 0 });
    expect(fake.calls).toBe(3);
  });

  it('refuses a baseUrl that is not an http(s) URL at once', () => {
    expect(() => createClient({ baseUrl: 'not a url' })).toThrow(/baseUrl must be an http\(s\) URL/);
    expect(() => createClient({ baseUrl: 'ftp://solver.test' })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: 'https://solver.test/api/' })).not.toThrow();
  });

  it('maps network failures to `unavailable`, and never retries creating a batch', async () => {
    const fake = countingClient(3, () => {
      throw new TypeError('fetch failed');
    });
    await expect(fake.client.batchStatus('x')).rejects.toMatchObject({ code: 'unavailable', status: 503 });
    expect(fake.calls).toBe(4);
    fake.calls = 0;
    await expect(fake.client.createBatch({ game: 'freecell', deals: '1..2' })).rejects.toMatchObject({ code: 'unavailable' });
    expect(fake.calls).toBe(1);
  });

  it('a results line that is not the API\'s is `unavailable` at once, not retried as a broken connection', async () => {
    for (const [line, message] of [
      ['{"seq": 1, "index":', /results line that is not JSON/],
      ['{"seq": "one"}', /a results line of the service does not match the API: seq: expected a number, got a string/],
    ] as const) {
      const fake = countingClient(3, () => new Response(`${line}\n`, { status: 200, headers: { 'content-type': 'application/x-ndjson' } }));
      const e = await (async () => {
        for await (const r of fake.client.batchResults('b1', { follow: false })) void r;
      })().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ServiceError);
      expect(e).toMatchObject({ code: 'unavailable', status: 503 });
      expect((e as Error).message).toMatch(message);
      expect(fake.calls).toBe(1);
    }
  });
});

describe('batches through the client', () => {
  it('creates a batch and iterates its results exactly once across a broken connection', async () => {
    let cut = true;
    // The first results stream breaks after its first chunk: the iterator resumes from its cursor.
    const flaky: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!cut || !String(input).includes('/results')) return res;
      cut = false;
      const reader = res.body!.getReader();
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent) {
            await reader.cancel();
            controller.error(new TypeError('connection reset'));
            return;
          }
          const { value, done } = await reader.read();
          if (done) return controller.close();
          sent = true;
          controller.enqueue(value);
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const client = createClient({ baseUrl: server.url, fetch: flaky, retryBaseMs: 10 });
    const batch = await client.createBatch({ game: 'freecell', deals: '1..300', limits: { maxStates: 1_000_000 } });
    expect(batch).toMatchObject({ status: 'running', total: 300 });
    const seqs: number[] = [];
    const indices = new Set<number>();
    for await (const r of client.batchResults(batch.id, { moves: true })) {
      seqs.push(r.seq);
      indices.add(r.index);
      expect(r.moves).toHaveLength(r.moveCount);
    }
    expect(cut).toBe(false);
    expect(seqs).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(indices.size).toBe(300);
    const status = await client.waitForBatch(batch.id, { intervalMs: 20 });
    expect(status).toMatchObject({ status: 'done', done: 300, counts: { solved: 300, unsolvable: 0, unknown: 0, error: 0 } });
    // Cancelling an ended batch changes nothing.
    expect((await client.cancelBatch(batch.id)).status).toBe('done');
    await expect(client.batchStatus('nope')).rejects.toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('hints', () => {
  it('give a legal next move of a solution from a position in the middle of a game', async () => {
    const deal = resolveDeal({ game: 'freecell', deal: 617 });
    const full = await local.solve({ game: 'freecell', deal: 617 });
    expect(full.verdict).toBe('solved');
    let layout = deal.layout;
    for (const m of full.moves.slice(0, 25)) layout = applyMove(deal.rules, layout, m);
    const board = formatBoard(layout, deal.rules);
    expect(board).toMatch(/^Foundations: /); // cards on the foundations...

    const client = createClient({ baseUrl: server.url });
    for (const solver of [local, client]) {
      const h = await hint(solver, { game: 'freecell', board });
      expect(h.verdict).toBe('solved');
      expect(h.move).not.toBeNull();
      expect(checkMove(deal.rules, layout, h.move!)).toBeNull();
      expect(h.notation).toBe(h.solution.notation[0]);
      expect(h.movesLeft).toBe(h.solution.moves.length);
      expect(checkSolution(deal.rules, layout, h.solution.moves).ok).toBe(true);
    }
    // A won game has no next move.
    let won = layout;
    for (const m of (await local.solve({ game: 'freecell', board })).moves) won = applyMove(deal.rules, won, m);
    const done = await local.hint({ game: 'freecell', layout: { columns: won.columns.map(() => []), foundations: { C: 13, D: 13, H: 13, S: 13 } } });
    expect(done).toMatchObject({ verdict: 'solved', move: null, movesLeft: 0 });
  });
});

describe('the documented examples and the package', () => {
  it('runs every TypeScript example of the README and docs/sdk.md', () => {
    const docs = ['README.md', 'docs/sdk.md'].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
    const examples = [...docs.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(examples.length).toBeGreaterThanOrEqual(4);
    const exampleDir = mkdtempSync(join(ROOT, 'tests', '.readme-examples-'));
    try {
      examples.forEach((code, i) => {
        const file = join(exampleDir, `example-${i + 1}.ts`);
        writeFileSync(file, code.replaceAll("'@solitaire-solver/sdk'", `'${join(ROOT, 'client-sdk', 'sdk', 'index.js')}'`));
        try {
          execFileSync(process.execPath, ['--import', 'tsx', file], {
            cwd: ROOT,
            env: { ...process.env, SOLVER_URL: server.url },
            stdio: 'pipe',
            timeout: 60_000,
          });
        } catch (e) {
          const x = e as { stdout?: Buffer; stderr?: Buffer };
          throw new Error(`documented SDK example ${i + 1} failed:\n${code}\n${x.stdout}\n${x.stderr}`);
        }
      });
    } finally {
      rmSync(exampleDir, { recursive: true, force: true });
    }
  });

  it('builds a package that Node imports by name, with type declarations', () => {
    const out = join(dir, 'sdk');
    execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'build-sdk.ts'), out], { cwd: ROOT, stdio: 'pipe' });
    const pkg = JSON.parse(readFileSync(join(out, 'package.json'), 'utf8')) as { name: string };
    // Its dependencies, as an install would put them beside it.
    symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir');
    const app = join(dir, 'app');
    mkdirSync(join(app, 'node_modules', '@solitaire-solver'), { recursive: true });
    symlinkSync(out, join(app, 'node_modules', pkg.name), 'dir');
    writeFileSync(join(app, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(app, 'main.ts'),
      [
        "import { createLocalSolver, type SolveResponse } from '@solitaire-solver/sdk';",
        'const solver = await createLocalSolver();',
        "const answer: SolveResponse = await solver.solve({ game: 'freecell', deal: 11982, numbering: 'ms' });",
        'console.log(answer.verdict);',
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, lib: ['ES2022', 'DOM'], types: [] }, files: ['main.ts'] }),
    );
    // The consumer type-checks against the package's declarations...
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], { cwd: app, stdio: 'pipe' });
    // ...and runs against its JavaScript and its Wasm file.
    writeFileSync(join(app, 'main.mjs'), "import { createLocalSolver } from '@solitaire-solver/sdk';\nconst s = await createLocalSolver();\nconsole.log((await s.solve({ game: 'freecell', deal: 11982 })).verdict);\n");
    const printed = execFileSync(process.execPath, [join(app, 'main.mjs')], { cwd: app, encoding: 'utf8' });
    expect(printed.trim()).toBe('unsolvable');
  });
});
