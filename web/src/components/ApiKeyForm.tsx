/**
 * The API key field, shown when the service answers 401 `unauthorized` (a
 * service started with `API_KEYS`): the person pastes a key, the page keeps
 * it for this tab only (`sessionStorage`, see api.ts) and sends it as the
 * bearer token of every later call.
 */
import { useState } from 'preact/hooks';

interface Props {
  /** The service's message for the 401 (no key sent, or the key was refused). */
  message: string;
  /** Whether a key was sent and refused (rather than none sent). */
  refused: boolean;
  /** Called with the trimmed key when the person submits a non-empty one. */
  onKey: (key: string) => void;
}

export function ApiKeyForm({ message, refused, onKey }: Props) {
  const [text, setText] = useState('');
  return (
    <form
      class="key-form"
      aria-label="API key"
      data-testid="key-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) onKey(text.trim());
      }}
    >
      <p class="key-lead">
        <strong>{refused ? 'The service refused this key.' : 'This service needs an API key.'}</strong> Paste the key you were given; the page keeps it
        for this tab only and sends it with each request.
      </p>
      <div class="key-row">
        <label class="field">
          <span>API key</span>
          <input
            name="apiKey"
            type="password"
            autoComplete="off"
            spellcheck={false}
            value={text}
            onInput={(e) => setText((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="primary" disabled={!text.trim()}>
          Use this key
        </button>
      </div>
      <p class="small muted">The service said: {message}</p>
    </form>
  );
}
