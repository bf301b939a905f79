/**
 * Per-key rate limits that hold across the fronts: one hono-rate-limiter
 * `MemoryStore` in the primary process counts every front's requests, and
 * each front's rate limiter reaches it through `FrontsRateLimitStore`, a
 * `Store` whose calls travel over the cluster channel (protocol.ts, op
 * `rate`). So a key gets `RATE_LIMIT_MAX` requests a window from the whole
 * service, whichever fronts its connections reach.
 *
 * Dividing the limit among the fronts instead would be wrong here: the
 * primary hands out connections, not requests, so a client on one
 * keep-alive connection talks to one front and would get only its share.
 * The price is one round trip to the primary a request when rate limits
 * are on (API keys and `RATE_LIMIT_MAX` > 0).
 */
import { MemoryStore, type ClientRateLimitInfo, type Store } from 'hono-rate-limiter';
import type { FrontLink } from './front-link.js';

/** The store operations a front may ask of the primary's store. */
const OPERATIONS = new Set(['increment', 'decrement', 'resetKey']);

/** A front's rate-limit store: the primary's `MemoryStore`, over the channel. */
export class FrontsRateLimitStore implements Store {
  readonly #link: FrontLink;
  /** Counts are the primary's: this store is shared by every front. */
  readonly localKeys = false;

  constructor(link: FrontLink) {
    this.#link = link;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    return (await this.#link.call('rate', ['increment', key])) as ClientRateLimitInfo;
  }

  async decrement(key: string): Promise<void> {
    await this.#link.call('rate', ['decrement', key]);
  }

  async resetKey(key: string): Promise<void> {
    await this.#link.call('rate', ['resetKey', key]);
  }
}

/**
 * The primary's side: a `MemoryStore` of window `windowMs` and the function
 * that runs a front's `rate` call on it.
 * @returns run(args): the store's answer to `[operation, key]`.
 * @throws Error (from run) for an operation other than increment, decrement, resetKey.
 */
export function sharedRateLimitStore(windowMs: number): (args: unknown[]) => unknown {
  const store = new MemoryStore();
  store.init({ windowMs } as Parameters<MemoryStore['init']>[0]);
  return ([operation, key]) => {
    if (typeof operation !== 'string' || !OPERATIONS.has(operation) || typeof key !== 'string') throw new Error(`not a rate-limit store call: ${String(operation)}`);
    const info = store[operation as 'increment'](key);
    // a copy: the store's own record keeps changing
    return info && { totalHits: info.totalHits, resetTime: info.resetTime };
  };
}
