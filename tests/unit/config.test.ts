/** The service configuration read from the environment (server/config.ts). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BATCH_FRONT, defaultFronts, frontConfig, loadConfig, loadDeepBudget, MAX_THREADS, shareOf } from '../../server/config.js';
import { DEFAULT_LIMITS_CONFIG, offlineLimitsPolicy } from '../../server/limits.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const threads = availableParallelism();
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      threads,
      maxQueue: 4 * threads,
      bodyLimitBytes: 1024 * 1024,
      limits: { defaultMaxStates: 5_000_000, maxStatesCap: 50_000_000, defaultTimeoutMs: 30_000, timeoutMsCap: 120_000 },
      memoryLimitBytes: 3072 * 1024 * 1024,
      recycleMemoryBytes: 512 * 1024 * 1024,
      stopGraceMs: 2000,
      shutdownDrainMs: 5000,
      shutdownTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      apiKeys: [],
      rateLimit: { max: 600, windowMs: 60_000 },
      corsOrigins: null,
      metricsToken: null,
      logLevel: 'info',
    });
  });

  it('reads every variable; empty strings count as unset', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      THREADS: '3',
      MAX_QUEUE: '0',
      BODY_LIMIT_BYTES: '2048',
      DEFAULT_MAX_STATES: '10',
      MAX_STATES_CAP: '20',
      DEFAULT_TIMEOUT_MS: '100',
      TIMEOUT_MS_CAP: '200',
      SHUTDOWN_TIMEOUT_MS: '',
    });
    expect(c).toMatchObject({ port: 8080, host: '127.0.0.1', threads: 3, maxQueue: 0, bodyLimitBytes: 2048, shutdownTimeoutMs: 10_000 });
    expect(c.limits).toEqual({ defaultMaxStates: 10, maxStatesCap: 20, defaultTimeoutMs: 100, timeoutMsCap: 200 });
    expect(loadConfig({ THREADS: '5' }).maxQueue).toBe(20);
  });

  it('FRONTS: one front a 4 CPUs by default (at least 1, at most THREADS), each front its share of THREADS and MAX_QUEUE', () => {
    expect([1, 2, 3, 4, 7, 8, 16, 64].map((cpus) => defaultFronts(cpus, 4 * cpus))).toEqual([1, 1, 1, 1, 1, 2, 4, 16]);
    expect(defaultFronts(64, 3)).toBe(3);
    expect(loadConfig({}).fronts).toBe(defaultFronts(availableParallelism(), availableParallelism()));
    expect(loadConfig({ FRONTS: '2', THREADS: '2' }).fronts).toBe(2);
    expect(() => loadConfig({ FRONTS: '3', THREADS: '2' })).toThrow(/FRONTS: must not exceed THREADS \(2\): each front needs a solver thread/);
    expect(() => loadConfig({ FRONTS: '0' })).toThrow(/FRONTS/);
    expect(() => loadConfig({ FRONTS: 'two' })).toThrow(/FRONTS: must be a whole number/);

    // THREADS and MAX_QUEUE are the service's; each front runs with its share, the larger shares first
    expect([0, 1, 2].map((i) => shareOf(5, 3, i))).toEqual([2, 2, 1]);
    const c = loadConfig({ FRONTS: '3', THREADS: '5', MAX_QUEUE: '7', BATCH_CONCURRENCY: '4' });
    expect([0, 1, 2].map((i) => frontConfig(c, i)).map((f) => [f.threads, f.maxQueue, f.batch.concurrency])).toEqual([
      [2, 3, 2],
      [2, 2, 2],
      [1, 2, 1],
    ]);
    // the batch front runs the batches on its own threads: BATCH_CONCURRENCY defaults to them
    expect(frontConfig(loadConfig({ FRONTS: '2', THREADS: '4' }), BATCH_FRONT).batch.concurrency).toBe(2);
    const one = loadConfig({ FRONTS: '1', THREADS: '3' });
    expect(frontConfig(one, 0)).toBe(one);
  });

  it('refuses more solver threads than 4 per CPU', () => {
    expect(loadConfig({ THREADS: String(MAX_THREADS) }).threads).toBe(MAX_THREADS);
    expect(() => loadConfig({ THREADS: String(MAX_THREADS + 1) })).toThrow(/THREADS/);
  });

  it('reads the operations variables', () => {
    const c = loadConfig({
      MAX_MEMORY_MB: '64',
      STOP_GRACE_MS: '1500',
      SOLVE_GROUP_MAX: '4',
      SHUTDOWN_TIMEOUT_MS: '3000',
      REQUEST_TIMEOUT_MS: '5000',
      API_KEYS: 'alice:alice-token-0123456789, 0123456789abcdef0123',
      RATE_LIMIT_MAX: '10',
      RATE_LIMIT_WINDOW_MS: '1000',
      CORS_ORIGINS: 'https://a.example, http://localhost:5173',
      METRICS_TOKEN: 'metrics-token-0123456789',
      LOG_LEVEL: 'warn',
    });
    expect(c).toMatchObject({
      memoryLimitBytes: 64 * 1024 * 1024,
      stopGraceMs: 1500,
      groupMax: 4,
      shutdownTimeoutMs: 3000,
      shutdownDrainMs: 1500, // half the shutdown budget when not given
      requestTimeoutMs: 5000,
      rateLimit: { max: 10, windowMs: 1000 },
      corsOrigins: ['https://a.example', 'http://localhost:5173'],
      metricsToken: 'metrics-token-0123456789',
      logLevel: 'warn',
    });
    expect(c.apiKeys).toEqual([
      { name: 'alice', token: 'alice-token-0123456789' },
      { name: expect.stringMatching(/^key-[0-9a-f]{8}$/), token: '0123456789abcdef0123' },
    ]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
  });

  it('reads API keys from API_KEYS_FILE too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-'));
    const file = join(dir, 'keys.txt');
    writeFileSync(file, '# service keys\nbob:bob-token-0123456789abcdef\n\ncarol:carol-token-0123456789 # ops\n');
    try {
      const c = loadConfig({ API_KEYS: 'alice:alice-token-0123456789', API_KEYS_FILE: file });
      expect(c.apiKeys.map((k) => k.name)).toEqual(['alice', 'bob', 'carol']);
      expect(() => loadConfig({ API_KEYS_FILE: join(dir, 'missing.txt') })).toThrow(/API_KEYS_FILE: cannot read/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('rejects weak, malformed or repeated keys without printing them, and bad operations values', () => {
    expect(() => loadConfig({ API_KEYS: 'short' })).toThrow(/API_KEYS: key 1: a token must be at least 16 characters/);
    expect(() => loadConfig({ API_KEYS: 'ok-token-0123456789,bad token with spaces' })).toThrow(/API_KEYS: key 2/);
    expect(() => loadConfig({ API_KEYS: 'bad name:ok-token-0123456789' })).toThrow(/API_KEYS: key 1: the name/);
    expect(() => loadConfig({ API_KEYS: 'a:same-token-0123456789,b:same-token-0123456789' })).toThrow(/given twice/);
    try {
      loadConfig({ API_KEYS: 'x:secret-token-0123456789,y:secret-token-0123456789' });
    } catch (err) {
      expect((err as Error).message).not.toContain('secret-token');
    }
    expect(() => loadConfig({ MAX_MEMORY_MB: '8' })).toThrow(/MAX_MEMORY_MB/);
    expect(() => loadConfig({ SOLVE_GROUP_MAX: '0' })).toThrow(/SOLVE_GROUP_MAX/);
    expect(() => loadConfig({ STOP_GRACE_MS: '999' })).toThrow(/STOP_GRACE_MS/);
    expect(loadConfig({}).groupMax).toBe(16);
    expect(() => loadConfig({ MAX_MEMORY_MB: '5000' })).toThrow(/MAX_MEMORY_MB/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL: must be one of/);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example/path' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_MS: '1000', SHUTDOWN_DRAIN_MS: '2000' })).toThrow(/SHUTDOWN_DRAIN_MS: must not exceed/);
  });

  it('reads RECYCLE_MEMORY_MB (0 = never), refusing what is not a size', () => {
    expect(loadConfig({ RECYCLE_MEMORY_MB: '0' }).recycleMemoryBytes).toBe(0);
    expect(loadConfig({ RECYCLE_MEMORY_MB: '100' }).recycleMemoryBytes).toBe(100 * 2 ** 20);
    expect(() => loadConfig({ RECYCLE_MEMORY_MB: 'lots' })).toThrow(/RECYCLE_MEMORY_MB: must be a whole number/);
    expect(() => loadConfig({ RECYCLE_MEMORY_MB: '5000' })).toThrow(/RECYCLE_MEMORY_MB/);
  });

  it('says what is wrong with CORS_ORIGINS, API_KEYS and BATCH_DB_PATH instead of guessing', () => {
    expect(() => loadConfig({ CORS_ORIGINS: '*,https://a.example' })).toThrow(/CORS_ORIGINS: \* \(any origin\) stands alone/);
    expect(() => loadConfig({ CORS_ORIGINS: ',,' })).toThrow(/CORS_ORIGINS: no origin/);
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, https://b.example' }).corsOrigins).toEqual(['https://a.example', 'https://b.example']);
    // Set but naming no key is refused (unset, or empty, means no authentication).
    expect(() => loadConfig({ API_KEYS: ',,,' })).toThrow(/API_KEYS: set but names no key/);
    expect(loadConfig({ API_KEYS: '' }).apiKeys).toEqual([]);
    // An explicit path in a missing directory is refused; the default's data/ is created by the store.
    const dir = mkdtempSync(join(tmpdir(), 'config-db-'));
    try {
      expect(() => loadConfig({ BATCH_DB_PATH: join(dir, 'missing/sub/batches.sqlite') })).toThrow(/BATCH_DB_PATH: the directory .*missing\/sub does not exist/);
      expect(loadConfig({ BATCH_DB_PATH: join(dir, 'batches.sqlite') }).batch.dbPath).toBe(join(dir, 'batches.sqlite'));
      expect(loadConfig({ BATCH_DB_PATH: ':memory:' }).batch.dbPath).toBe(':memory:');
      // The redis backend never opens it.
      expect(() => loadConfig({ BATCH_BACKEND: 'redis', BATCH_DB_PATH: join(dir, 'missing/b.sqlite') })).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects bad values, naming each variable', () => {
    expect(() => loadConfig({ PORT: 'http' })).toThrow(/PORT: must be a whole number/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => loadConfig({ THREADS: '0', BODY_LIMIT_BYTES: '-1' })).toThrow(/THREADS.*BODY_LIMIT_BYTES/);
    expect(() => loadConfig({ DEFAULT_MAX_STATES: '100', MAX_STATES_CAP: '10' })).toThrow(/DEFAULT_MAX_STATES: must not exceed MAX_STATES_CAP/);
    expect(() => loadConfig({ DEFAULT_TIMEOUT_MS: '500000' })).toThrow(/DEFAULT_TIMEOUT_MS/);
  });

  it("caps every *_MS at Node's longest timer (a longer one fires at once) and MAX_QUEUE at a million", () => {
    for (const name of ['RATE_LIMIT_WINDOW_MS', 'SHUTDOWN_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS', 'TIMEOUT_MS_CAP']) {
      expect(() => loadConfig({ [name]: '2147483648' }), name).toThrow(`${name}: must be at most 2147483647`);
    }
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_MS: '4294967294', SHUTDOWN_DRAIN_MS: '2147483648' })).toThrow('SHUTDOWN_DRAIN_MS: must be at most 2147483647');
    expect(loadConfig({ RATE_LIMIT_WINDOW_MS: '2147483647' }).rateLimit.windowMs).toBe(2_147_483_647);
    expect(() => loadConfig({ MAX_QUEUE: '1e+23' })).toThrow(/MAX_QUEUE: must be a whole number/);
    expect(() => loadConfig({ MAX_QUEUE: '1000001' })).toThrow('MAX_QUEUE: must be at most 1000000');
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_MS: '0' })).toThrow('SHUTDOWN_TIMEOUT_MS: must be at least 100');
    expect(loadConfig({ SHUTDOWN_READY_DELAY_MS: '5000' }).shutdownReadyDelayMs).toBe(5000);
    expect(() => loadConfig({ SHUTDOWN_READY_DELAY_MS: '5001' })).toThrow(/SHUTDOWN_READY_DELAY_MS: must not exceed half of SHUTDOWN_TIMEOUT_MS/);
    expect(() => loadConfig({ SHUTDOWN_READY_DELAY_MS: '4000', SHUTDOWN_DRAIN_MS: '7000' })).toThrow(/SHUTDOWN_READY_DELAY_MS: with SHUTDOWN_DRAIN_MS \(7000\) must not exceed/);
  });
});

describe('loadDeepBudget (the offline tools\' deep budget)', () => {
  it('has the documented defaults: 2,000,000,000 positions, 30 min, 4095 MiB, and reads DEEP_*', () => {
    expect(loadDeepBudget({})).toEqual({ maxStates: 2_000_000_000, timeoutMs: 1_800_000, maxMemoryMb: 4095 });
    expect(loadDeepBudget({ DEEP_MAX_STATES: '100000000', DEEP_TIMEOUT_MS: '3600000', DEEP_MAX_MEMORY_MB: '2048', DEEP_OTHER: 'x' })).toEqual({
      maxStates: 100_000_000,
      timeoutMs: 3_600_000,
      maxMemoryMb: 2048,
    });
    expect(loadDeepBudget({ DEEP_MAX_STATES: ' ' }).maxStates).toBe(2_000_000_000);
  });

  it('refuses memory past 16384 MiB (the layered pass over four engines), and non-numbers, naming each variable', () => {
    expect(loadDeepBudget({ DEEP_MAX_MEMORY_MB: '16384' }).maxMemoryMb).toBe(16384);
    expect(() => loadDeepBudget({ DEEP_MAX_MEMORY_MB: '16385' })).toThrow('invalid configuration: DEEP_MAX_MEMORY_MB: must be at most 16384');
    expect(() => loadDeepBudget({ DEEP_MAX_MEMORY_MB: '15' })).toThrow('invalid configuration: DEEP_MAX_MEMORY_MB: must be at least 16');
    expect(() => loadDeepBudget({ DEEP_MAX_STATES: String(2 ** 31) })).toThrow(/DEEP_MAX_STATES/);
    expect(() => loadDeepBudget({ DEEP_TIMEOUT_MS: '0', DEEP_MAX_STATES: 'many' })).toThrow(/DEEP_MAX_STATES.*DEEP_TIMEOUT_MS|DEEP_TIMEOUT_MS.*DEEP_MAX_STATES/);
  });

  it('offlineLimitsPolicy: the service\'s defaults, the deep caps', () => {
    const budget = { maxStates: 80_000_000, timeoutMs: 600_000, maxMemoryMb: 4095 };
    expect(offlineLimitsPolicy(budget)).toEqual({
      defaultMaxStates: DEFAULT_LIMITS_CONFIG.defaultMaxStates,
      maxStatesCap: 80_000_000,
      defaultTimeoutMs: DEFAULT_LIMITS_CONFIG.defaultTimeoutMs,
      timeoutMsCap: 600_000,
    });
    // a deep budget below the service's defaults lowers them too
    expect(offlineLimitsPolicy({ ...budget, maxStates: 1000, timeoutMs: 10 })).toMatchObject({ defaultMaxStates: 1000, maxStatesCap: 1000, defaultTimeoutMs: 10, timeoutMsCap: 10 });
  });
});
