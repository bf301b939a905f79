/**
 * The one error type of the SDK and the service. Every failure that reaches a
 * user carries a stable machine-readable `code`; the server maps `status` to
 * the HTTP status in exactly one place (`app.onError`).
 */

/** Machine-readable error codes, with the HTTP status each maps to. */
export const ERROR_STATUS = {
  invalid_request: 400,
  malformed_json: 400,
  /** A body or file read as bytes is not valid UTF-8 (`location.offset`: the first bad byte). */
  invalid_utf8: 400,
  malformed_board: 400,
  invalid_layout: 400,
  missing_card: 400,
  duplicate_card: 400,
  wrong_column_count: 400,
  wrong_cell_count: 400,
  deal_out_of_range: 400,
  numbering_not_supported: 400,
  layout_required: 400,
  bad_limits: 400,
  bad_rules: 400,
  illegal_move: 400,
  unknown_game: 404,
  not_found: 404,
  /** The path exists, not for this method (`Allow` names those it takes). */
  method_not_allowed: 405,
  /** The request conflicts with the state of its target (e.g. deleting the results of a batch still running). */
  conflict: 409,
  /** The request was not received in full within the server's deadline (`REQUEST_TIMEOUT_MS`); the connection is closed. */
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** The request's headers are larger than the server takes (Node's maximum header size); the connection is closed. */
  headers_too_large: 431,
  unauthorized: 401,
  rate_limited: 429,
  /** A quota would be passed (e.g. the deals queued in running batches): retry once earlier work has finished. */
  quota_exceeded: 429,
  overloaded: 503,
  solution_check_failed: 500,
  engine_error: 500,
  /** The engine trapped (a WebAssembly runtime error); its instance was reset. */
  engine_trap: 500,
  /** The engine ignored its stop flag past the deadline; its worker was terminated and replaced. */
  engine_unresponsive: 500,
  /** The worker thread died mid-solve (killed or crashed); it was replaced. */
  worker_crashed: 500,
  /** The worker thread ran out of JavaScript heap mid-solve; it was replaced. */
  out_of_memory: 500,
  internal_error: 500,
  /** SDK only (`sdk/client.ts`): the service could not be reached, or answered something that is not the API. */
  unavailable: 503,
} as const;

/** One of the error codes above. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Where in the input the fault is (whichever parts apply). */
export interface ErrorLocation {
  /** 1-based line of a board text, or of a request body that is not valid JSON. */
  line?: number;
  /** 1-based column (character) in that line. */
  column?: number;
  /** The offending token. */
  token?: string;
  /** JSON path of the offending field, e.g. `"layout.columns.3"`. */
  path?: string;
  /** 0-based byte offset of the first byte that is not UTF-8, in a body or file read as bytes (`invalid_utf8`). */
  offset?: number;
}

/**
 * An error with a stable `code` and, when the input is at fault, its location.
 * `status` is the HTTP status the service answers with.
 */
export class SolverError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly location?: ErrorLocation;

  constructor(code: ErrorCode, message: string, location?: ErrorLocation) {
    super(message);
    this.name = 'SolverError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    if (location && Object.keys(location).length > 0) this.location = location;
  }

  /** The JSON error body of the API: `{error: {code, message, ...location}}`. */
  toJSON(): { error: { code: ErrorCode; message: string } & ErrorLocation } {
    return { error: { code: this.code, message: this.message, ...this.location } };
  }
}
