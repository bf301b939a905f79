/**
 * Unit tests of the engine's arena (assembly/arena.ts) and state table
 * (assembly/table.ts), below the search: assembly/testing/table-harness.ts
 * is compiled with the project's AssemblyScript compiler and driven directly.
 * The search tests (engine.test.ts) cover the same code through whole solves;
 * these pin its contracts one by one: aligned, non-overlapping blocks within
 * the cap, released regions reused, every stored key found again across slot
 * growth, and each failure (state budget, memory, stop) reported as such.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import asc from 'assemblyscript/asc';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

interface Harness {
  arenaReset(limitBytes: number): void;
  arenaAllocate(bytes: number): number;
  arenaRelease(start: number, bytes: number): void;
  arenaUsed(): number;
  pages(): number;
  tableReset(maxRecords: number, limitBytes: number): number;
  insertSeed(seed: number, parent: number, move: number): number;
  insertRange(first: number, count: number): number;
  recordHoldsSeed(index: number, seed: number): number;
  wasNew(): number;
  failure(): number;
  stopReason(): number;
  count(): number;
  tableResetOnly(maxRecords: number): number;
  slotsInUse(): number;
  failStates: WebAssembly.Global;
  failMemory: WebAssembly.Global;
  failStopped: WebAssembly.Global;
}

const MiB = 1 << 20;

let dir: string;
let module: WebAssembly.Module;
let stopAnswer = 0;
let h: Harness;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'table-harness-'));
  const out = join(dir, 'harness.wasm');
  const { error, stderr } = await asc.main([
    join(ROOT, 'assembly/testing/table-harness.ts'),
    '--outFile', out, '--optimizeLevel', '3', '--runtime', 'stub', '--noAssert',
    '--initialMemory', '16', '--maximumMemory', '65536', '--enable', 'simd,bulk-memory', '--bindings', 'raw',
  ]);
  if (error) throw new Error(`harness did not compile: ${error.message}\n${stderr.toString()}`);
  module = new WebAssembly.Module(readFileSync(out));
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeEach(() => {
  stopAnswer = 0;
  const instance = new WebAssembly.Instance(module, {
    env: {
      pollStop: () => stopAnswer,
      abort: () => {
        throw new Error('harness abort');
      },
    },
  });
  h = instance.exports as unknown as Harness;
});

describe('arena', () => {
  it('hands out 16-byte aligned, disjoint blocks and grows the memory as they need', () => {
    h.arenaReset(64 * MiB);
    const blocks: [number, number][] = [];
    for (const size of [1, 15, 16, 17, 1000, 65536, 3 * MiB]) {
      const at = h.arenaAllocate(size);
      expect(at).toBeGreaterThan(0);
      expect(at % 16).toBe(0);
      blocks.push([at, at + size]);
    }
    blocks.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < blocks.length; i++) expect(blocks[i][0]).toBeGreaterThanOrEqual(blocks[i - 1][1]);
    expect(h.pages() * 65536).toBeGreaterThanOrEqual(blocks[blocks.length - 1][1]);
  });

  it('answers 0 past its cap, and a reset starts again from the bottom', () => {
    h.arenaReset(2 * MiB);
    const first = h.arenaAllocate(1024);
    expect(h.arenaAllocate(4 * MiB)).toBe(0);
    expect(h.arenaAllocate(1024)).toBeGreaterThan(first);
    h.arenaReset(2 * MiB);
    expect(h.arenaAllocate(1024)).toBe(first);
  });

  it('carves later blocks from a released region before it moves the top', () => {
    h.arenaReset(64 * MiB);
    const big = h.arenaAllocate(MiB);
    h.arenaAllocate(16);
    const used = h.arenaUsed();
    h.arenaRelease(big, MiB);
    const a = h.arenaAllocate(1000);
    const b = h.arenaAllocate(1000);
    expect(a).toBe(big);
    expect(b).toBe(big + 1008);
    expect(h.arenaUsed()).toBe(used);
    expect(h.arenaAllocate(2 * MiB)).toBeGreaterThanOrEqual(used);
  });
});

describe('state table', () => {
  it('stores each key once and finds every one again, with its parent, move and key intact, across slot growth', () => {
    expect(h.tableReset(1_000_000, 512 * MiB)).toBe(1);
    const n = 300_000; // several doublings of the 65,536 initial slots
    expect(h.insertRange(1, n)).toBe(n);
    expect(h.count()).toBe(n);
    expect(h.insertRange(1, n)).toBe(0); // all found, none new
    expect(h.count()).toBe(n);
    for (const seed of [1, 2, 65_536, 123_457, n]) {
      const index = h.insertSeed(seed, 0, 0);
      expect(h.wasNew()).toBe(0);
      expect(h.recordHoldsSeed(index, seed)).toBe(1);
    }
    const fresh = h.insertSeed(n + 1, 7, 9);
    expect(h.wasNew()).toBe(1);
    expect(fresh).toBe(n + 1);
  });

  it('starts every table with all slots empty, whether it zeroes the last small table\'s slots or fills the block', () => {
    // small table, one arena reset between: only its records' slots are zeroed
    expect(h.tableReset(1_000_000, 512 * MiB)).toBe(1);
    expect(h.insertRange(1, 3000)).toBe(3000);
    expect(h.slotsInUse()).toBe(3000);
    expect(h.tableReset(1_000_000, 512 * MiB)).toBe(1);
    expect(h.slotsInUse()).toBe(0);
    expect(h.count()).toBe(0);
    expect(h.insertRange(2001, 3000)).toBe(3000); // none of the old keys is found
    expect(h.insertRange(1, 2000)).toBe(2000);
    // two arena resets between (as when the shortening beam ran): the whole block is filled
    h.arenaReset(512 * MiB);
    expect(h.tableReset(1_000_000, 512 * MiB)).toBe(1);
    expect(h.slotsInUse()).toBe(0);
    expect(h.insertRange(1, 10)).toBe(10);
    // no arena reset between (the same slots are handed out again only after one): filled
    expect(h.tableResetOnly(1_000_000)).toBe(1);
    expect(h.slotsInUse()).toBe(0);
    // a table that outgrew its first slots, then a small one after it
    expect(h.tableReset(1_000_000, 512 * MiB)).toBe(1);
    expect(h.insertRange(1, 100_000)).toBe(100_000);
    expect(h.tableReset(1_000_000, 512 * MiB)).toBe(1);
    expect(h.slotsInUse()).toBe(0);
    expect(h.insertRange(1, 100)).toBe(100);
    expect(h.tableReset(1_000_000, 512 * MiB)).toBe(1);
    expect(h.slotsInUse()).toBe(0);
  });

  it('refuses the record past its state budget with FAIL_STATES, and still finds the stored ones', () => {
    h.tableReset(1000, 64 * MiB);
    expect(h.insertRange(1, 1000)).toBe(1000);
    expect(h.insertSeed(1001, 0, 0)).toBe(0);
    expect(h.failure()).toBe(h.failStates.value);
    expect(h.insertSeed(500, 0, 0)).toBeGreaterThan(0);
    expect(h.wasNew()).toBe(0);
  });

  it('ends with FAIL_MEMORY under a memory cap, having filled it', () => {
    h.tableReset(50_000_000, 32 * MiB);
    const result = h.insertRange(1, 10_000_000);
    expect(result).toBeLessThan(0);
    expect(h.failure()).toBe(h.failMemory.value);
    // 32 MiB at 56-byte records plus slots: well over 300,000 records fit
    expect(h.count()).toBeGreaterThan(300_000);
    expect(h.arenaUsed()).toBeLessThanOrEqual(32 * MiB + 65536);
  });

  it('stops a slot growth the host asks to stop, with FAIL_STOPPED and the host\'s reason', () => {
    h.tableReset(50_000_000, 1024 * MiB);
    expect(h.insertRange(1, 1_500_000)).toBe(1_500_000); // past GROW_POLL_RECORDS, growths poll the host
    stopAnswer = 2;
    const result = h.insertRange(1_500_001, 3_000_000);
    expect(result).toBeLessThan(0);
    expect(h.failure()).toBe(h.failStopped.value);
    expect(h.stopReason()).toBe(2);
  });
});
