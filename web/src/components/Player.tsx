/** Step and play controls: first, back, play/pause, forward, last, a scrubber and the speed. */

/** Icons as inline SVG (font glyphs such as ⏮ are missing from many system fonts). */
function Icon({ d }: { d: string }) {
  return (
    <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      <path d={d} fill="currentColor" />
    </svg>
  );
}
const ICONS = {
  first: 'M2 2h2v12H2zM14 2v12L5 8z',
  back: 'M12 2v12L3 8z',
  forward: 'M4 2v12l9-6z',
  last: 'M12 2h2v12h-2zM2 2v12l9-6z',
  play: 'M4 2v12l10-6z',
  pause: 'M3 2h4v12H3zM9 2h4v12H9z',
  replay: 'M14 8A6 6 0 1 1 8 2V0l4 3-4 3V4a4 4 0 1 0 4 4z',
};
interface Props {
  step: number;
  total: number;
  playing: boolean;
  speed: number;
  onStep: (step: number) => void;
  onPlay: (playing: boolean) => void;
  onSpeed: (movesPerSecond: number) => void;
}

export const SPEEDS = [0.5, 1, 2, 4, 8, 16] as const;

export function Player({ step, total, playing, speed, onStep, onPlay, onSpeed }: Props) {
  const atStart = step <= 0;
  const atEnd = step >= total;
  return (
    <div class="player" role="group" aria-label="Play the solution">
      <div class="player-buttons">
        <button type="button" onClick={() => onStep(0)} disabled={atStart} aria-label="First: the start position" title="Start (Home)">
          <Icon d={ICONS.first} />
        </button>
        <button type="button" onClick={() => onStep(step - 1)} disabled={atStart} aria-label="Back one move" title="Back (←)">
          <Icon d={ICONS.back} />
        </button>
        <button
          type="button"
          class="play"
          onClick={() => onPlay(!playing)}
          disabled={total === 0}
          aria-label={playing ? 'Pause' : 'Play'}
          title="Play / pause (space)"
        >
          {playing ? (
            <>
              <Icon d={ICONS.pause} /> Pause
            </>
          ) : atEnd && total > 0 ? (
            <>
              <Icon d={ICONS.replay} /> Replay
            </>
          ) : (
            <>
              <Icon d={ICONS.play} /> Play
            </>
          )}
        </button>
        <button type="button" onClick={() => onStep(step + 1)} disabled={atEnd} aria-label="Forward one move" title="Forward (→)">
          <Icon d={ICONS.forward} />
        </button>
        <button type="button" onClick={() => onStep(total)} disabled={atEnd} aria-label="Last: the end position" title="End (End)">
          <Icon d={ICONS.last} />
        </button>
      </div>
      <div class="player-row">
        <input
          type="range"
          min={0}
          max={total}
          value={step}
          onInput={(e) => onStep(Number((e.target as HTMLInputElement).value))}
          aria-label="Move"
        />
        <span class="step-count" data-testid="step">
          {step === 0 ? 'Start' : `Move ${step}`} of {total}
        </span>
      </div>
      <label class="player-row speed">
        Speed
        <select value={String(speed)} onChange={(e) => onSpeed(Number((e.target as HTMLSelectElement).value))} aria-label="Speed">
          {SPEEDS.map((s) => (
            <option value={String(s)} key={s}>
              {s} move{s === 1 ? '' : 's'}/s
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
