/**
 * What the person asks for (the form), how it becomes a solve request, how it
 * is written into the page's link (the URL hash) and read back, and the local
 * preview of the position (the SDK's own dealer and board parser, so the
 * layout is drawn before anything is solved).
 */
import { SolverError } from '../../client-sdk/core/errors.js';
import { resolveDeal } from '../../client-sdk/api/request.js';
import type { Deal, Numbering } from '../../client-sdk/core/rules.js';
import type { SolveRequest } from './api.js';

/** The form's state; numbers stay text until a request is built. */
export interface Form {
  game: string;
  /** Where the position comes from. */
  source: 'deal' | 'board';
  /** Deal number, digits. */
  deal: string;
  numbering: Numbering;
  /** A board in fc-solve's text format. */
  board: string;
  /** State budget; empty = the server's default. */
  maxStates: string;
  /** Deadline in ms; empty = the server's default. */
  timeoutMs: string;
}

export const DEFAULT_FORM: Readonly<Form> = Object.freeze({
  game: 'freecell',
  source: 'deal',
  deal: '1',
  numbering: 'ms',
  board: '',
  maxStates: '',
  timeoutMs: '',
});

/** The part of the form that names the position (what a solve result belongs to). */
export function positionKey(form: Form): string {
  return JSON.stringify([form.game, form.source, form.source === 'deal' ? [form.deal.trim(), form.numbering] : form.board]);
}

function limitValue(text: string): number | undefined {
  const t = text.replace(/[\s,_]/g, '');
  return t === '' ? undefined : Number(t);
}

/** The solve request of a form. Bad numbers are left for the server to reject, with its message. */
export function toRequest(form: Form): SolveRequest {
  const req: SolveRequest = { game: form.game };
  if (form.source === 'deal') {
    const deal = form.deal.trim();
    req.deal = /^\d+$/.test(deal) && Number.isSafeInteger(Number(deal)) ? Number(deal) : deal;
    req.numbering = form.numbering;
  } else {
    req.board = form.board;
  }
  const maxStates = limitValue(form.maxStates);
  const timeoutMs = limitValue(form.timeoutMs);
  if (maxStates !== undefined || timeoutMs !== undefined) req.limits = { maxStates, timeoutMs };
  return req;
}

/** The link (URL hash, without `#`) that reopens this deal; `move` is the step shown. */
export function toHash(form: Form, move?: number): string {
  const p = new URLSearchParams();
  p.set('game', form.game);
  if (form.source === 'deal') {
    p.set('deal', form.deal.trim());
    p.set('numbering', form.numbering);
  } else {
    p.set('board', form.board);
  }
  if (form.maxStates.trim()) p.set('maxStates', String(limitValue(form.maxStates)));
  if (form.timeoutMs.trim()) p.set('timeoutMs', String(limitValue(form.timeoutMs)));
  if (move !== undefined && move > 0) p.set('move', String(move));
  return p.toString();
}

/** Reads a link written by {@link toHash}; null when the hash names no position. */
export function fromHash(hash: string): { form: Form; move: number } | null {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const game = p.get('game');
  const deal = p.get('deal');
  const board = p.get('board');
  if (!game || (deal === null && board === null)) return null;
  const numbering = p.get('numbering');
  const form: Form = {
    ...DEFAULT_FORM,
    game,
    source: board !== null ? 'board' : 'deal',
    deal: deal ?? DEFAULT_FORM.deal,
    numbering: numbering === 'pysolfc' ? 'pysolfc' : 'ms',
    board: board ?? '',
    maxStates: p.get('maxStates') ?? '',
    timeoutMs: p.get('timeoutMs') ?? '',
  };
  const move = Number(p.get('move') ?? 0);
  return { form, move: Number.isInteger(move) && move > 0 ? move : 0 };
}

/** The local preview: the position drawn before solving, or why there is none. */
export type Preview = { deal: Deal } | { error: SolverError } | null;

/**
 * The position of a form, dealt or parsed in the browser by the same SDK code
 * the server runs (`resolveDeal`), so a preview and a solve always agree.
 * Null when there is nothing to show yet (an empty deal number or board).
 */
export function preview(form: Form): Preview {
  const req = toRequest({ ...form, maxStates: '', timeoutMs: '' });
  if (form.source === 'deal' ? form.deal.trim() === '' : form.board.trim() === '') return null;
  try {
    return { deal: resolveDeal(req) };
  } catch (err) {
    if (err instanceof SolverError) return { error: err };
    return { error: new SolverError('invalid_request', err instanceof Error ? err.message : String(err)) };
  }
}

/**
 * Why the form's deal number cannot be solved, in the SDK's own words (the
 * same `resolveDeal` the server runs: not digits, 0, or beyond the
 * numbering's last deal), or null when it can (or the form names a board,
 * whose faults the service reports with their line). The form refuses to
 * send a request while this is not null.
 */
export function dealFault(form: Form): string | null {
  if (form.source !== 'deal') return null;
  if (form.deal.trim() === '') return 'Enter a deal number.';
  const p = preview(form);
  return p && 'error' in p ? p.error.message : null;
}
