/**
 * The SDK's local solver in a page: the engine is compiled from the Wasm file
 * the bundler copied next to the script (the SDK's browser entry points at
 * it), and every solve runs in the page, with the service's answer shape.
 */
import { createLocalSolver, SolverError, type SolveResponse } from '@solitaire-solver/sdk';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $<HTMLParagraphElement>('status');
const output = $<HTMLPreElement>('output');
const solveButton = $<HTMLButtonElement>('solve');
const hintButton = $<HTMLButtonElement>('hint');

function request() {
  return { game: $<HTMLSelectElement>('game').value, deal: Number($<HTMLInputElement>('deal').value), limits: { timeoutMs: 10_000 } };
}

function show(answer: SolveResponse, ms: number): void {
  status.textContent = `${answer.verdict}${answer.reason ? ` (${answer.reason})` : ''}: ${answer.stats.moveCount} moves, ${answer.stats.statesStored} positions, ${ms.toFixed(0)} ms`;
  status.dataset.verdict = answer.verdict;
  output.textContent = `${answer.board}\n${answer.notation.join(' ')}`;
}

function fail(err: unknown): void {
  status.dataset.verdict = 'error';
  status.textContent = err instanceof SolverError ? `${err.code}: ${err.message}` : String(err);
}

try {
  const solver = await createLocalSolver();
  status.textContent = 'Ready.';
  status.dataset.ready = 'true';
  solveButton.disabled = false;
  hintButton.disabled = false;

  $<HTMLFormElement>('form').addEventListener('submit', async (event) => {
    event.preventDefault();
    status.textContent = 'Solving…';
    delete status.dataset.verdict;
    // Let the page paint "Solving…" before the engine takes the thread.
    await new Promise((r) => setTimeout(r, 0));
    const t = performance.now();
    try {
      show(await solver.solve(request()), performance.now() - t);
    } catch (err) {
      fail(err);
    }
  });

  hintButton.addEventListener('click', async () => {
    try {
      const h = await solver.hint(request());
      status.textContent = h.move ? `hint: ${h.notation} (${h.fcs}), ${h.movesLeft} moves to go` : `no move: ${h.verdict}`;
      status.dataset.verdict = h.verdict;
    } catch (err) {
      fail(err);
    }
  });
} catch (err) {
  fail(err);
}
