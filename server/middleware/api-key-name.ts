/**
 * The name of the API key a request was authenticated with, as the
 * `apiKeys` middleware (api-keys.ts) leaves it on the request's context,
 * for the routes that count per key (the batch quotas). Apart from
 * api-keys.ts so that a route can read it without importing the
 * configuration.
 */
import type { Context } from 'hono';

/** The context variable `apiKeys` sets. */
export const API_KEY_VAR = 'apiKeyName';

/** The name of the API key a request was authenticated with, or null when the server has no keys. */
export function apiKeyNameOf(c: Context): string | null {
  const name: unknown = c.get(API_KEY_VAR as never);
  return typeof name === 'string' ? name : null;
}
