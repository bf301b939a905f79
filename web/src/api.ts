/**
 * The page's calls to the service: `GET /v1/games`, `POST /v1/solve` and `POST /v1/review`,
 * same origin. Types come from the SDK's wire schemas (type-only imports, so
 * no zod schema is bundled from there).
 *
 * API key: a service started with `API_KEYS` answers `/v1/*` only with
 * `Authorization: Bearer <key>`. The page asks the person for a key when a
 * call answers 401 `unauthorized` and keeps it in `sessionStorage` (this tab
 * only, gone when the tab closes; never in the link or in `localStorage`).
 */
import type { ErrorResponse, GameInfo, GamesResponse, SolveRequest, SolveResponse } from '../../client-sdk/api/schemas.js';

import type { ReviewRequest, ReviewResponse } from '../../client-sdk/api/apps-schemas.js';

export type { GameInfo, ReviewResponse, SolveRequest, SolveResponse };

/** The `error` object of an API error body: code, message and where the fault is. */
export type ApiErrorBody = ErrorResponse['error'];

/** A failed call: the API's error body, or one made up for a network failure or a non-JSON answer. */
export class ApiError extends Error {
  constructor(
    readonly body: ApiErrorBody | { code: string; message: string },
    readonly status: number,
  ) {
    super(body.message);
    this.name = 'ApiError';
  }
}

/** The `sessionStorage` entry that holds the key for this tab. */
export const API_KEY_STORAGE = 'solitaire-solver.apiKey';

/** The key kept for this tab, or null (none given, or storage unavailable). */
export function apiKey(): string | null {
  try {
    return sessionStorage.getItem(API_KEY_STORAGE);
  } catch {
    return null;
  }
}

/**
 * Keeps `key` for this tab's later calls (trimmed); null or empty forgets it.
 * Storage failures (private modes that refuse storage) are ignored: the key
 * then lasts until the page reloads, in `memoryKey`.
 */
export function setApiKey(key: string | null): void {
  const k = key?.trim() || null;
  memoryKey = k;
  try {
    if (k) sessionStorage.setItem(API_KEY_STORAGE, k);
    else sessionStorage.removeItem(API_KEY_STORAGE);
  } catch {
    // memoryKey serves
  }
}

let memoryKey: string | null = null;

/** Headers of a call: `extra`, plus the bearer key when one is kept. */
function headersWithKey(extra?: HeadersInit): Headers {
  const h = new Headers(extra);
  const key = apiKey() ?? memoryKey;
  if (key) h.set('authorization', `Bearer ${key}`);
  return h;
}

/** (A variable, not a literal: bundlers take `new URL('<literal>', import.meta.url)` for a file to copy.) */
const PARENT = '../';

/**
 * Where the service's routes are: the folder the page's assets sit under
 * (`assets/` in the build, `src/` in development) one level up, so the
 * calls reach `/v1/...` from `/` and from `/play` alike.
 */
export const SERVICE_ROOT = new URL(PARENT, import.meta.url);

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(new URL(path, SERVICE_ROOT), { ...init, headers: headersWithKey(init?.headers) });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError({ code: 'network_error', message: `The service did not answer (${err instanceof Error ? err.message : String(err)}).` }, 0);
  }
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    throw new ApiError({ code: 'bad_response', message: `The service answered ${res.status} ${res.statusText} without a JSON body.` }, res.status);
  }
  if (!res.ok) {
    const body = (json as Partial<ErrorResponse>)?.error;
    if (body && typeof body.code === 'string' && typeof body.message === 'string') throw new ApiError(body, res.status);
    throw new ApiError({ code: 'bad_response', message: `The service answered ${res.status} ${res.statusText}.` }, res.status);
  }
  return json as T;
}

/** Every game preset. */
export async function fetchGames(signal?: AbortSignal): Promise<GameInfo[]> {
  return (await call<GamesResponse>('v1/games', { signal })).games;
}

/** One solve; `signal` cancels it (the server stops the search when the client goes away). */
export function solve(request: SolveRequest, signal?: AbortSignal): Promise<SolveResponse> {
  return call<SolveResponse>('v1/solve', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
    signal,
  });
}

/** A review of a played game (`POST /v1/review`, docs/apps.md). */
export function review(request: ReviewRequest, signal?: AbortSignal): Promise<ReviewResponse> {
  return call<ReviewResponse>('v1/review', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
    signal,
  });
}
