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
