/**
 * The session's search cache (pure, no vscode): an identical request (same service, same
 * account, same parameters) within the configured lifetime is answered without a call.
 * Entries expire by age; the oldest are dropped beyond `maxEntries`.
 */

export interface CacheOptions {
  /** Lifetime in minutes; 0 (or less) disables the cache. */
  minutes: () => number;
  maxEntries?: number;
  now?: () => number;
}

/** A canonical key: parameters sorted by name, undefined/null/false-y defaults left out, lists joined. */
export function cacheKey(scope: string, params: object): string {
  const entries = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => [k, Array.isArray(v) ? (v as unknown[]).map(String).join(',') : v] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([scope, entries]);
}

export class SearchCache<T> {
  private readonly entries = new Map<string, { at: number; value: T }>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(private readonly options: CacheOptions) {
    this.maxEntries = options.maxEntries ?? 100;
    this.now = options.now ?? Date.now;
  }

  private lifetimeMs(): number {
    const m = this.options.minutes();
    return Number.isFinite(m) && m > 0 ? m * 60_000 : 0;
  }

  get(key: string): T | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    const life = this.lifetimeMs();
    if (life === 0 || this.now() - hit.at >= life) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: string, value: T): void {
    if (this.lifetimeMs() === 0) return;
    this.entries.delete(key);
    this.entries.set(key, { at: this.now(), value });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
