/** The service configuration read from the environment (server/config.ts). */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const threads = availableParallelism();
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '0.0.0.0',
      threads,
      maxQueue: 4 * threads,
      bodyLimitBytes: 1024 * 1024,
      limits: { defaultMaxStates: 5_000_000, maxStatesCap: 50_000_000, defaultTimeoutMs: 30_000, timeoutMsCap: 120_000 },
      shutdownTimeoutMs: 10_000,
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

  it('rejects bad values, naming each variable', () => {
    expect(() => loadConfig({ PORT: 'http' })).toThrow(/PORT: must be a whole number/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => loadConfig({ THREADS: '0', BODY_LIMIT_BYTES: '-1' })).toThrow(/THREADS.*BODY_LIMIT_BYTES/);
    expect(() => loadConfig({ DEFAULT_MAX_STATES: '100', MAX_STATES_CAP: '10' })).toThrow(/DEFAULT_MAX_STATES: must not exceed MAX_STATES_CAP/);
    expect(() => loadConfig({ DEFAULT_TIMEOUT_MS: '500000' })).toThrow(/DEFAULT_TIMEOUT_MS/);
  });
});
