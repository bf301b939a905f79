/**
 * The answer of a request job, made on the worker that solved it: the JSON
 * of `POST /v1/solve` (`buildSolveResponse`: the board text, the moves as
 * JSON, standard notation and fc-solve lines, the counters), or for
 * `POST /v1/proofs` the certificate file when there is one. The main thread
 * writes these bytes as they are.
 */
import { buildSolveResponse } from '../../client-sdk/api/request.js';
import type { SolveRequest } from '../../client-sdk/api/schemas.js';
import type { Deal } from '../../client-sdk/core/rules.js';
import type { SolveOutcome } from '../../client-sdk/core/solve-types.js';
import type { ResponseSpec, WireResponse } from './wire.js';

const utf8 = new TextEncoder();

/**
 * The response of `request` (its one deal, `deal`) for `outcome`.
 * `POST /v1/proofs` answers the certificate when the verdict is
 * `unsolvable` and the certificate was built within its caps (named
 * `<game>-<deal or "position">.proof.gz`), else the JSON answer.
 */
export function buildResponse(spec: ResponseSpec, request: SolveRequest | undefined, deal: Deal, outcome: SolveOutcome): WireResponse {
  const certificate = outcome.proof?.certificate;
  if (spec.route === 'proofs' && outcome.proof !== undefined && certificate?.included) {
    const number = request?.deal;
    const filename = `${spec.game}-${number !== undefined ? String(number) : 'position'}.proof.gz`.replace(/[^\w.-]/g, '_');
    return { body: certificate.certificate, certificate: { positions: outcome.proof.positions, fingerprint: outcome.proof.fingerprint, filename } };
  }
  return { body: utf8.encode(JSON.stringify(buildSolveResponse(spec.game, deal, spec.limits, outcome))) };
}
