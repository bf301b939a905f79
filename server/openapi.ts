/**
 * Pieces of the OpenAPI document shared by the solve routes (app.ts), the
 * app routes (apps-routes.ts) and the batch routes (batches/routes.ts): the
 * error body, the answers of the access layer that every `/v1/*` route may
 * give, those of every route with a JSON body and of every route that
 * solves, and the bearer scheme.
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

/** What every route with a JSON body (app.ts `jsonBody`, the body limit, the request deadline) may answer. */
export const JSON_BODY_RESPONSES = {
  408: errorContent("`request_timeout`: the request was not received in full within the server's deadline (`REQUEST_TIMEOUT_MS`); the connection is closed."),
  413: errorContent('Request body over the size limit.'),
  415: errorContent('`unsupported_media_type`: Content-Type is not application/json (or its charset is not UTF-8), or the body has a Content-Encoding other than identity (bodies are not decoded).'),
} as const;

/** What every route that runs solves on the pool may answer, the access layer's answers included. */
export const SOLVER_RESPONSES = {
  404: errorContent('Unknown game.'),
  500: errorContent('Engine failure or internal error.'),
  503: errorContent('All solvers busy and the queue full; retry after `Retry-After` seconds.'),
  ...ACCESS_RESPONSES,
} as const;

/** Name of the bearer security scheme in the document's components. */
export const BEARER_SCHEME = 'bearerAuth';

/** The bearer security scheme (API keys are bearer tokens). */
export const BEARER_SECURITY_SCHEME = {
  type: 'http' as const,
  scheme: 'bearer',
  description: 'An API key, when the server has `API_KEYS`; without them no authentication is needed.',
};
