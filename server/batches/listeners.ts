/**
 * Per-batch change listeners, as both batch backends hand them out
 * (`BatchBackend.subscribe`) and call them when a batch changes.
 */
export class BatchListeners {
  readonly #byBatch = new Map<string, Set<() => void>>();

  /** Adds `listener` for batch `id`; returns the function that removes it. */
  subscribe(id: string, listener: () => void): () => void {
    let set = this.#byBatch.get(id);
    if (!set) this.#byBatch.set(id, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#byBatch.delete(id);
    };
  }

  /** Calls every listener of batch `id` (over a copy: a listener may unsubscribe). */
  notify(id: string): void {
    const set = this.#byBatch.get(id);
    if (set) for (const listener of [...set]) listener();
  }

  /** Calls the listeners of every batch that has any. */
  notifyAll(): void {
    for (const id of [...this.#byBatch.keys()]) this.notify(id);
  }
}
