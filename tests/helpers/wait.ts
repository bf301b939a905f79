/**
 * Waiting for a condition in a test, without sleeping a fixed time: vitest's
 * `vi.waitUntil`, with a message that says what was awaited.
 */
import { vi } from 'vitest';

/** Options of {@link until}. */
export interface UntilOptions {
  /** Give up after this many ms; default 10,000. */
  timeoutMs?: number;
  /** Ask again every this many ms; default 5. */
  intervalMs?: number;
  /** Added to the error (a child's output, the last state seen). */
  detail?: () => string;
}

/**
 * Resolves once `condition()` holds (a promise is awaited before the next
 * poll). A condition may throw to give up at once (a child that exited).
 * @throws Error `"<what>: not within <timeoutMs> ms"`, or `"<what>: <the
 *   condition's error>"`, with `detail()` after it.
 */
export async function until(what: string, condition: () => boolean | Promise<boolean>, options: UntilOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  let thrown: unknown;
  const check = async () => {
    try {
      return await condition();
    } catch (err) {
      thrown = err;
      throw err;
    }
  };
  try {
    await vi.waitUntil(check, { timeout: timeoutMs, interval: options.intervalMs ?? 5 });
  } catch {
    const reason = thrown === undefined ? `not within ${timeoutMs} ms` : thrown instanceof Error ? thrown.message : String(thrown);
    throw new Error(`${what}: ${reason}${options.detail ? `; ${options.detail()}` : ''}`);
  }
}
