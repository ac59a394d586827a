/**
 * A Memento whose writes reach VS Code one after another. VS Code keeps an extension's globalState as one stored value,
 * and when a write has been stored it replaces the extension host's copy with what was stored. So a write made after
 * an earlier one was sent, and before that one's copy came back, is dropped: first in memory, then on disk when it is
 * flushed. Seen with VS Code 1.103: the key tag of a running thread, written just after the run, was lost.
 * Here each write waits until the one before it has been stored (VS Code sends the copy back before it answers the
 * write), and until then reads see it from here. Pure: the memento is VS Code's, or a test's.
 */
export interface MementoLike {
  keys(): readonly string[];
  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  update(key: string, value: unknown): Thenable<void>;
}

export class SerialMemento implements MementoLike {
  /** Values written and not yet handed to the memento, as it will hold them (a JSON copy); undefined: removed. */
  private readonly pending = new Map<string, unknown>();
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly inner: MementoLike) {}

  keys(): readonly string[] {
    const keys = new Set(this.inner.keys());
    for (const [key, value] of this.pending) {
      if (value === undefined) keys.delete(key);
      else keys.add(key);
    }
    return [...keys];
  }

  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    if (this.pending.has(key)) {
      // As VS Code's memento: only undefined gives the default (a stored null is read back as null).
      const value = this.pending.get(key) as T | undefined;
      return value === undefined ? defaultValue : value;
    }
    return defaultValue === undefined ? this.inner.get<T>(key) : this.inner.get<T>(key, defaultValue);
  }

  update(key: string, value: unknown): Thenable<void> {
    // A copy, as VS Code stores it: changing the object afterwards changes nothing stored.
    const stored = value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
    this.pending.set(key, stored);
    const write = this.tail.then(async () => {
      const done = this.inner.update(key, stored);
      // The memento holds it now: reads go there, unless a later write of the key is waiting.
      if (this.pending.get(key) === stored) this.pending.delete(key);
      await done;
    });
    this.tail = write.catch(() => undefined);
    return write;
  }
}
