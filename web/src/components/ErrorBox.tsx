/**
 * An error of the service (or of the in-browser preview, which runs the same
 * SDK parser): its code, its message, and where the fault is. For a board
 * text the offending line is quoted with its neighbours and the token marked.
 */
import type { ApiErrorBody } from '../api.js';

interface Props {
  title: string;
  error: ApiErrorBody | { code: string; message: string; line?: number; column?: number; token?: string; path?: string };
  /** The board text the error refers to, for quoting the line. */
  boardText?: string | null;
  /** Selects the fault in the board text area. */
  onGoTo?: (line: number, column?: number, token?: string) => void;
  testId?: string;
}

function where(e: Props['error']): string | null {
  const parts: string[] = [];
  if (e.line !== undefined) parts.push(`line ${e.line}`);
  if (e.column !== undefined) parts.push(`column ${e.column}`);
  if (e.token !== undefined) parts.push(`token “${e.token}”`);
  if (e.path !== undefined) parts.push(`field ${e.path}`);
  return parts.length > 0 ? parts.join(', ') : null;
}

export function ErrorBox({ title, error, boardText, onGoTo, testId }: Props) {
  const loc = where(error);
  const lines = boardText != null && error.line !== undefined ? boardText.replace(/\r/g, '').split('\n') : null;
  const at = error.line !== undefined ? error.line - 1 : -1;
  const excerpt = lines && at >= 0 && at <= lines.length ? lines.map((text, i) => ({ text, i })).slice(Math.max(0, at - 1), at + 2) : null;

  return (
    <div class="error-box" role="alert" data-testid={testId} data-code={error.code} data-line={error.line}>
      <div class="error-title">
        <span aria-hidden="true">⚠</span> {title} <code class="error-code">{error.code}</code>
      </div>
      <p class="error-message">{error.message}</p>
      {loc && <p class="error-where">At {loc}.</p>}
      {excerpt && (
        <pre class="error-excerpt" aria-label="The board text around the fault">
          {excerpt.map(({ text, i }) => {
            const hit = i === at;
            const col = hit && error.column !== undefined ? error.column - 1 : -1;
            const len = hit && error.token ? error.token.length : 0;
            return (
              <div class={hit ? 'hit' : undefined} key={i}>
                <span class="ln">{String(i + 1).padStart(3)} │ </span>
                {col >= 0 && len > 0 ? (
                  <>
                    {text.slice(0, col)}
                    <mark>{text.slice(col, col + len)}</mark>
                    {text.slice(col + len)}
                  </>
                ) : (
                  text || ' '
                )}
              </div>
            );
          })}
        </pre>
      )}
      {onGoTo && error.line !== undefined && (
        <button type="button" class="link-button" onClick={() => onGoTo(error.line!, error.column, error.token)}>
          Show line {error.line} in the board text
        </button>
      )}
    </div>
  );
}
