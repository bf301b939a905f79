/**
 * A game of MS FreeCell 617 played with the SDK: `Position` and `Game` keep
 * the rules (every legal move is a button), and after every move
 * `createAnalyser` asks the engine, in a Web Worker, whether the game can
 * still be won; when it cannot, `findLoss` names the move that lost it.
 * A move made while an analysis runs stops it (its `signal`).
 */
import { createAnalyser, formatBoard, Game, Position, resolveDeal, type Analysis } from '@solitaire-solver/sdk';

const $ = (id: string) => document.getElementById(id)!;
const DEAL = 617;
const analyser = createAnalyser({
  worker: () => new Worker(new URL('./analysis.worker.ts', import.meta.url), { type: 'module' }),
});

let game = Game.start(Position.of(resolveDeal({ game: 'freecell', deal: DEAL, numbering: 'ms' })));
let latest: Analysis | null = null;
let stop = new AbortController();

function say(verdict: string, text: string): void {
  $('status').dataset.verdict = verdict;
  $('status').textContent = text;
}

async function analyse(): Promise<void> {
  stop.abort();
  stop = new AbortController();
  const { signal } = stop;
  latest = null;
  say('analysing', 'Analysing…');
  try {
    const a = await analyser.analyse('freecell', game.position, { signal });
    latest = a;
    if (a.verdict === 'winnable') say('winnable', `Winnable: ${a.movesLeft} moves left in a solution.`);
    else if (a.verdict === 'unknown') say('unknown', `Unknown: the ${a.reason} budget ran out.`);
    else {
      say('lost', `Lost: a complete search of ${a.proofPositions} positions finds no win.`);
      if (game.moveCount === 0) return;
      const loss = await analyser.findLoss('freecell', game, { signal });
      if (loss.result === 'lost') {
        $('status').dataset.losingMove = String(loss.moveIndex);
        say('lost', `Lost by move ${loss.moveIndex + 1} (${loss.notation}); ${loss.alternative.notation} instead would have kept it winnable.`);
      }
    }
  } catch (err) {
    if (!(err instanceof DOMException && err.name === 'AbortError')) say('error', String(err));
  }
}

function draw(): void {
  const p = game.position;
  $('deal').textContent = `#${DEAL}, ${game.moveCount} moves`;
  $('board').textContent = formatBoard(p.layout, p.rules);
  $('hint-text').textContent = '';
  delete $('status').dataset.losingMove;
  $('moves').replaceChildren(
    ...p.legalMoves().map((move) => {
      const button = document.createElement('button');
      button.textContent = p.notation(move);
      button.dataset.move = p.notation(move);
      button.onclick = () => play(move);
      return button;
    }),
  );
  void analyse();
}

function play(move: Parameters<Game['play']>[0]): void {
  game = game.play(move, { autoMoves: true });
  draw();
}

$('undo').onclick = () => {
  game = game.undo();
  draw();
};
$('hint').onclick = () => {
  $('hint-text').textContent =
    latest?.verdict === 'winnable' && latest.notation.length > 0 ? `Hint: ${latest.notation[0]}` : 'No hint yet (analysing, or no winning move).';
};
draw();
