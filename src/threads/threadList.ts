/**
 * Pure rules for the threads listing (no `vscode`: unit-tested in plain Node). VS Code refuses a tree whose items
 * share an id, and a Threads view item's id is its thread id, so a listing that names one thread twice (a service
 * bug, or a thread that moved between two pages while they were read) must not reach the tree twice.
 */

/**
 * `list` with one entry per `thread_id`: the first listed wins (the list is newest first), ids in `shown` are left out.
 */
export function uniqueThreads<T extends { thread_id: string }>(
  list: readonly T[],
  shown: ReadonlySet<string> = new Set(),
): T[] {
  const seen = new Set(shown);
  const out: T[] = [];
  for (const t of list) {
    if (seen.has(t.thread_id)) continue;
    seen.add(t.thread_id);
    out.push(t);
  }
  return out;
}
