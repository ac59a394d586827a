/**
 * What the thread watcher keeps in globalState: the running threads per service origin (so
 * polling resumes after a window reload or a restart) and unsent drafts. Types only from
 * `vscode`, nothing of the client: the entry bundle reads the running list at start-up to decide
 * whether the core must load at all.
 */
import type * as vscode from 'vscode';
import { StorageKeys } from '../platform/ids';

export type ThreadModeName = 'pro' | 'deep';

/** The body that was sent (kept so a failed run can be retried with the same brief). */
export interface SentRequest {
  input_message: string;
  mode?: ThreadModeName;
  filters?: Record<string, unknown> | null;
  attachments?: { paper_ids?: string[] | null } | null;
}

export interface RunningThread {
  threadId: string;
  interactionId: string;
  title?: string;
  mode: ThreadModeName;
  url?: string;
  pollAfterSeconds: number;
  maxWaitSeconds: number;
  /** Epoch ms when the run was dispatched (or the watch resumed). */
  startedAt: number;
  request?: SentRequest;
  /** True for a follow-up (an interaction added to an existing thread). */
  followUp?: boolean;
  /** The brief's gist (briefGist): the run's name when the service's title is missing or names every such run alike. */
  gist?: string;
  /**
   * Which API key the run was asked with (src/service/keyTag.ts: a one-way tag, never the key): the service knows a
   * thread only under its own account's keys. Absent in runs remembered by an older version.
   */
  keyTag?: string;
}

export const runningKey = (origin: string | undefined): string =>
  StorageKeys.runningThreadsPrefix + (origin ?? 'unknown');

function isRunningThread(v: unknown): v is RunningThread {
  const r = v as Partial<RunningThread> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.threadId === 'string' &&
    /^[A-Za-z0-9_-]+$/.test(r.threadId) &&
    typeof r.interactionId === 'string' &&
    (r.mode === 'pro' || r.mode === 'deep') &&
    typeof r.pollAfterSeconds === 'number' &&
    Number.isFinite(r.pollAfterSeconds) &&
    typeof r.maxWaitSeconds === 'number' &&
    Number.isFinite(r.maxWaitSeconds) &&
    typeof r.startedAt === 'number' &&
    (r.keyTag === undefined || typeof r.keyTag === 'string')
  );
}

/** The running threads remembered for `origin` (malformed entries dropped). Cheap: one Memento read. */
export function readRunning(state: vscode.Memento, origin: string | undefined): RunningThread[] {
  const v = state.get<unknown>(runningKey(origin));
  return Array.isArray(v) ? v.filter(isRunningThread) : [];
}

export function writeRunning(
  state: vscode.Memento,
  origin: string | undefined,
  list: readonly RunningThread[],
): Thenable<void> {
  return state.update(runningKey(origin), list.length ? list : undefined);
}
