/**
 * The service's solve budgets: the defaults a request gets when it names
 * none and the caps it may not exceed. The environment may change them
 * (`DEFAULT_MAX_STATES`, `MAX_STATES_CAP`, `DEFAULT_TIMEOUT_MS`,
 * `TIMEOUT_MS_CAP`, read by server/config.ts); the request reader
 * (`resolveLimits` in client-sdk/api/request.ts) applies them, and a game's
 * own defaults (client-sdk/core/rules.ts `defaultLimits`) within the caps.
 * The SDK's local solver has its own defaults (client-sdk/sdk/local.ts).
 */
import type { BudgetPolicy } from '../client-sdk/api/request.js';

/** Defaults and caps of the service's solve budgets: states (count) and deadlines (ms). */
export type LimitsConfig = BudgetPolicy;

/** The service's default budgets: 5,000,000 states / 30 s, capped at 50,000,000 states / 120 s. */
export const DEFAULT_LIMITS_CONFIG: Readonly<LimitsConfig> = Object.freeze({
  defaultMaxStates: 5_000_000,
  maxStatesCap: 50_000_000,
  defaultTimeoutMs: 30_000,
  timeoutMsCap: 120_000,
});

/**
 * Largest engine memory one solve can have, MiB: 4095. The engine is
 * wasm32, so one engine's linear memory cannot pass 4 GiB (65,536 pages of
 * 64 KiB; the glue keeps below 0xffff0000 bytes, `MAX_ENGINE_MEMORY_BYTES`
 * in client-sdk/core/engine/abi.ts). Only the layered pass of the no-cell
 * Castle games goes past it, over several engines (DEEP_MEMORY_MB_MAX).
 */
export const ENGINE_MEMORY_MB_MAX = 4095;

/**
 * Largest deep-budget memory, MiB: 16384 (issue #15's "16 GB per deal").
 * Only the layered pass of the no-cell Castle games (client-sdk/core/sharded-layers.ts)
 * can use more than ENGINE_MEMORY_MB_MAX: it spreads one search over
 * ceil(cap / 4 GiB) engines. Every other search stays at ENGINE_MEMORY_MB_MAX.
 */
export const DEEP_MEMORY_MB_MAX = 16384;

/**
 * The deep budget of the offline tools (`npm run solve`, `npm run batch`),
 * which the HTTP service never applies: what `--deep` asks for, and the most
 * an explicit `--max-states`, `--timeout-ms` or `--max-memory-mb` may ask.
 * Counts are positions stored, times milliseconds (CPU and wall clock are
 * the same for one engine on one core), memory MiB of engine linear memory.
 */
export interface DeepBudget {
  /** Positions stored at most (the engine's table is indexed by u32, so at most 2^31 − 1 here). */
  maxStates: number;
  /** Deadline, ms of wall clock. */
  timeoutMs: number;
  /**
   * Engine memory cap, MiB (at most DEEP_MEMORY_MB_MAX). Above
   * ENGINE_MEMORY_MB_MAX only the layered pass uses it (over several
   * engines); a best-first search gets ENGINE_MEMORY_MB_MAX of it.
   */
  maxMemoryMb: number;
}

/**
 * The deep budget when the environment sets none (`DEEP_MAX_STATES`,
 * `DEEP_TIMEOUT_MS`, `DEEP_MAX_MEMORY_MB`, read by `loadDeepBudget` in
 * server/config.ts): 2,000,000,000 positions, 30 minutes, 4095 MiB. At about
 * 70 bytes a stored Castle position, 4 GiB holds some 60 M positions, so the
 * memory cap, not the state count, is what ends a deep Castle search today.
 */
export const DEFAULT_DEEP_BUDGET: Readonly<DeepBudget> = Object.freeze({
  maxStates: 2_000_000_000,
  timeoutMs: 30 * 60_000,
  maxMemoryMb: ENGINE_MEMORY_MB_MAX,
});

/**
 * The budget policy of an offline tool: the service's defaults when a
 * request names no budget (and a game's own, client-sdk/core/rules.ts
 * `defaultLimits`, which `resolveLimits` in client-sdk/api/request.ts puts
 * first), but the deep budget's caps, so that an explicit value may go past
 * the service's caps up to the deep maxima. `--deep` names the deep budget
 * explicitly in the request (the game defaults would otherwise win).
 * @param service the service's policy (DEFAULT_LIMITS_CONFIG unless configured).
 */
export function offlineLimitsPolicy(budget: Readonly<DeepBudget>, service: Readonly<LimitsConfig> = DEFAULT_LIMITS_CONFIG): LimitsConfig {
  return {
    defaultMaxStates: Math.min(service.defaultMaxStates, budget.maxStates),
    maxStatesCap: budget.maxStates,
    defaultTimeoutMs: Math.min(service.defaultTimeoutMs, budget.timeoutMs),
    timeoutMsCap: budget.timeoutMs,
  };
}
