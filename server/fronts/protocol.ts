/**
 * The messages between the primary process and its HTTP fronts (`FRONTS` >
 * 1, server/fronts/primary.ts), over node:cluster's IPC channel with the
 * `advanced` serialization (the structured clone algorithm: `Date`s,
 * `Uint8Array`s and `undefined` survive). Every message of ours carries
 * `channel: 'fronts'`, so that prom-client's own cluster messages (its
 * metrics requests, `AggregatorRegistry`) pass by.
 *
 * Calls (`call` → `reply` with the same `id`, per sender):
 *
 * | from | op | does |
 * |---|---|---|
 * | a front | `metrics` | the whole service's `/metrics` text: every front's metrics summed by prom-client's `AggregatorRegistry.aggregate` |
 * | a front | `stats` | the whole service's pool numbers (`/healthz`, `/readyz`): every front's `pool.stats()`, numbers summed |
 * | a front | `rate` | one operation of the shared rate-limit store (`[method, key]`: `increment`, `decrement`, `resetKey`) |
 * | a front | `batch` | one `BatchBackend` method (`[method, ...args]`), passed on to the batch front |
 * | the primary | `batch` | the same, run by the batch front on its own backend |
 * | the primary | `metrics` | the front's own metrics (`Registry.getMetricsAsJSON`) |
 * | the primary | `stats` | the front's own pool numbers |
 *
 * Notices (no answer): a front's `state` (ready, stopping); the primary's
 * `service` (the service's readiness) and `shutdown`; batch result
 * subscriptions (`subscribe`, `unsubscribe` to the batch front, `notify`
 * back to the subscriber's front).
 */
import { SolverError, type ErrorCode, type ErrorLocation } from '../../client-sdk/core/errors.js';
import type { FrontsReadiness } from '../lifecycle.js';

/** What every message of ours carries. */
export const CHANNEL = 'fronts';

/** Calls a front makes of the primary. */
export type PrimaryOp = 'metrics' | 'stats' | 'rate' | 'batch';
/** Calls the primary makes of a front. */
export type FrontOp = 'batch' | 'metrics' | 'stats';

/** An error as it crosses the channel. */
export interface WireError {
  message: string;
  /** Set for a `SolverError`, which is rebuilt as one. */
  code?: ErrorCode;
  location?: ErrorLocation;
}

/** A call; answered by a `reply` of the same `id`. */
export interface CallMessage<Op extends string> {
  channel: typeof CHANNEL;
  t: 'call';
  id: number;
  op: Op;
  args: unknown[];
}

/** The answer to a call. */
export type ReplyMessage = { channel: typeof CHANNEL; t: 'reply'; id: number } & ({ ok: true; value: unknown } | { ok: false; error: WireError });

/** Front → primary. */
export type FrontMessage =
  | CallMessage<PrimaryOp>
  | ReplyMessage
  | { channel: typeof CHANNEL; t: 'state'; ready: boolean; stopping: boolean }
  | { channel: typeof CHANNEL; t: 'subscribe'; sub: number; batch: string }
  | { channel: typeof CHANNEL; t: 'unsubscribe'; sub: number }
  /** From the batch front: subscription `sub` of front `front` may have news. */
  | { channel: typeof CHANNEL; t: 'notify'; front: number; sub: number };

/** Primary → front. */
export type PrimaryMessage =
  | CallMessage<FrontOp>
  | ReplyMessage
  | ({ channel: typeof CHANNEL; t: 'service' } & FrontsReadiness)
  | { channel: typeof CHANNEL; t: 'shutdown'; reason: string }
  /** To the batch front: front `front` subscribes (its `sub`) to batch `batch`. */
  | { channel: typeof CHANNEL; t: 'subscribe'; front: number; sub: number; batch: string }
  | { channel: typeof CHANNEL; t: 'unsubscribe'; front: number; sub: number }
  /** To a subscriber's front: its subscription `sub` may have news. */
  | { channel: typeof CHANNEL; t: 'notify'; sub: number };

/** True when `message` is one of ours (not prom-client's, not anybody else's). */
export function isOurs(message: unknown): message is { channel: typeof CHANNEL; t: string } {
  return typeof message === 'object' && message !== null && (message as { channel?: unknown }).channel === CHANNEL;
}

/** `err` as it crosses the channel: a `SolverError` keeps its code and location. */
export function toWire(err: unknown): WireError {
  if (err instanceof SolverError) return { message: err.message, code: err.code, ...(err.location ? { location: err.location } : {}) };
  return { message: err instanceof Error ? err.message : String(err) };
}

/** The error a `WireError` stands for: a `SolverError` again when it was one. */
export function fromWire(wire: WireError): Error {
  return wire.code !== undefined ? new SolverError(wire.code, wire.message, wire.location) : new Error(wire.message);
}

/**
 * The calls a process made and awaits, by id: `start` registers one and
 * returns its id and promise, `settle` answers it from a `reply`; a call
 * unanswered after its timeout, or when `failAll` is called (the other side
 * is gone), rejects with the error given.
 */
export class PendingCalls {
  #next = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();

  /**
   * Registers a call.
   * @param timeoutMs how long the answer may take, ms.
   * @param onTimeout the error it then rejects with.
   */
  start(timeoutMs: number, onTimeout: () => Error): { id: number; answer: Promise<unknown> } {
    const id = this.#next++;
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(onTimeout());
      }, timeoutMs);
      timer.unref();
      this.#pending.set(id, { resolve, reject, timer });
    });
    return { id, answer };
  }

  /** Answers the call of `reply.id`, if it is still waiting. */
  settle(reply: ReplyMessage): void {
    const call = this.#pending.get(reply.id);
    if (!call) return;
    this.#pending.delete(reply.id);
    clearTimeout(call.timer);
    if (reply.ok) call.resolve(reply.value);
    else call.reject(fromWire(reply.error));
  }

  /** Rejects every waiting call with `err()`. */
  failAll(err: () => Error): void {
    for (const [id, call] of this.#pending) {
      clearTimeout(call.timer);
      this.#pending.delete(id);
      call.reject(err());
    }
  }
}

/**
 * Runs `handler(args)` for a call and builds its reply: the value, or the
 * error (a throw or a rejection).
 */
export async function answer(id: number, handler: () => unknown): Promise<ReplyMessage> {
  try {
    return { channel: CHANNEL, t: 'reply', id, ok: true, value: await handler() };
  } catch (err) {
    return { channel: CHANNEL, t: 'reply', id, ok: false, error: toWire(err) };
  }
}
