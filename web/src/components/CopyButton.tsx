import { useEffect, useState } from 'preact/hooks';

/**
 * Copies text to the clipboard: the Clipboard API where the page is a secure
 * context (https, localhost), else a hidden text area and `execCommand`.
 */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the browser refused to copy');
}

interface Props {
  label: string;
  /** The text to copy, computed on click. */
  text: () => string;
  disabled?: boolean;
  testId?: string;
}

/** A button that copies and says so for a moment. */
export function CopyButton({ label, text, disabled, testId }: Props) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 1600);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      class={`copy ${state}`}
      disabled={disabled}
      data-testid={testId}
      title={`Copy ${label === 'Link' ? 'a link that reopens this deal' : label === 'Board' ? 'the position shown, in fc-solve format' : label}`}
      onClick={() => copyText(text()).then(() => setState('copied'), () => setState('failed'))}
    >
      <span aria-live="polite">{state === 'copied' ? '✓ Copied' : state === 'failed' ? 'Copy failed' : label}</span>
    </button>
  );
}
