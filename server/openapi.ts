/**
 * Pieces of the OpenAPI document shared by the solve routes (app.ts), the
 * app routes (apps-routes.ts) and the batch routes (batches/routes.ts): the
 * error body, the answers of the access layer that every `/v1/*` route may
 * give, those of every route with a JSON body and of every route that
 * solves, and the bearer scheme; and the validation hook of every route
 * that has a request schema (`requestHook`).
 */
import { z, type RouteConfig } from '@hono/zod-openapi';
import { ErrorResponseSchema, parseRequestAsync, validationError } from '../client-sdk/api/schemas.js';

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

/** The schema a route validates one part of a request with (`target`: `json`, `query`, `param`, ...); undefined when it has none. */
function requestSchemaOf(route: RouteConfig, target: string): z.ZodType | undefined {
  const request = route.request;
  switch (target) {
    case 'json':
    case 'form': {
      const content = request?.body?.content ?? {};
      const type = Object.keys(content).find((t) => (target === 'json' ? /\bjson\b/i.test(t) : /form/i.test(t)));
      const media = type === undefined ? undefined : content[type as keyof typeof content];
      return media !== undefined && 'schema' in media && media.schema instanceof z.ZodType ? media.schema : undefined;
    }
    case 'query':
      return request?.query;
    case 'param':
      return request?.params;
    case 'header':
      return request?.headers instanceof z.ZodType ? request.headers : undefined;
    case 'cookie':
      return request?.cookies;
    default:
      return undefined;
  }
}

/**
 * What @hono/zod-openapi hands a route's validation hook, as far as the hook
 * needs its type (the input that failed comes along too, from
 * @hono/zod-validator, as `data`).
 */
type ValidationResult = { target: string } & ({ success: true } | { success: false; error: z.ZodError });

/**
 * The validation hook of a route (the third argument of `app.openapi`): a
 * request that fails its schema is thrown as the `SolverError` of
 * `validationError`, worded as `parseRequest` words it. The failing part is
 * parsed again with the house messages (`issueMessage`,
 * client-sdk/core/issue-messages.ts) because @hono/zod-openapi's own parse
 * takes no parse options, and zod's global configuration is not ours to set
 * (the SDK's schemas run in users' apps); only a request that fails pays for
 * the second parse.
 * @param route the route, whose request schemas the hook parses with.
 */
export function requestHook(route: RouteConfig): (result: ValidationResult) => Promise<never> | undefined {
  return (result) => {
    if (result.success) return undefined;
    const schema = requestSchemaOf(route, result.target);
    const input = (result as { data?: unknown }).data;
    const reparsed = schema === undefined ? Promise.resolve() : parseRequestAsync(schema, input);
    // the second parse fails as the first did, throwing the house wording; the first failure is the fallback
    return reparsed.then(() => {
      throw validationError(result.error);
    });
  };
}
