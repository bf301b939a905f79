/**
 * Pieces of the OpenAPI document shared by the solve routes (app.ts) and the
 * batch routes (batches/routes.ts): the error body, the answers of the
 * access layer that every `/v1/*` route may give, and the bearer scheme.
 */
import { ErrorResponseSchema } from '../client-sdk/api/schemas.js';

/** The content of an error response for a documented status. */
export function errorContent(description: string) {
  return { description, content: { 'application/json': { schema: ErrorResponseSchema } } };
}

/**
 * What the access layer (server/middleware/api-keys.ts) may answer on any
 * `/v1/*` route when the server has API keys (`API_KEYS`).
 */
export const ACCESS_RESPONSES = {
  401: errorContent('`unauthorized`: the server has API keys and the request has no valid `Authorization: Bearer <token>`.'),
  429: errorContent("`rate_limited`: the API key's requests per window are used up; retry after `Retry-After` seconds."),
} as const;

/** Name of the bearer security scheme in the document's components. */
export const BEARER_SCHEME = 'bearerAuth';

/** The bearer security scheme (API keys are bearer tokens). */
export const BEARER_SECURITY_SCHEME = {
  type: 'http' as const,
  scheme: 'bearer',
  description: 'An API key, when the server has `API_KEYS`; without them no authentication is needed.',
};
