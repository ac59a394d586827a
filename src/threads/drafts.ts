/**
 * Unsent briefs, kept in globalState so that nothing typed is lost: a brief that failed
 * validation, was refused (deep on a free plan, 409) or could not be sent is kept here and
 * offered again the next time (per target: a new thread, or a follow-up to a thread).
 */
import type * as vscode from 'vscode';
import { type SentRequest } from './persisted';
import { StorageKeys } from '../platform/ids';

export const NEW_THREAD = 'new';

export interface Draft extends SentRequest {
  savedAt: number;
  /** Why it was kept (shown when it is offered again). */
  reason?: string;
}

const MAX_DRAFTS = 20;

export class DraftStore {
  constructor(private readonly state: vscode.Memento) {}

  private all(): Record<string, Draft> {
    const v = this.state.get<unknown>(StorageKeys.threadDrafts);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, Draft>) : {};
  }

  get(target: string = NEW_THREAD): Draft | undefined {
    const d = this.all()[target];
    return d && typeof d.input_message === 'string' ? d : undefined;
  }

  async keep(target: string, request: SentRequest, reason?: string): Promise<void> {
    const all = { ...this.all(), [target]: { ...request, savedAt: Date.now(), reason } };
    // Bounded: the oldest drafts go first.
    const entries = Object.entries(all)
      .sort((a, b) => b[1].savedAt - a[1].savedAt)
      .slice(0, MAX_DRAFTS);
    await this.state.update(StorageKeys.threadDrafts, Object.fromEntries(entries));
  }

  async clear(target: string = NEW_THREAD): Promise<void> {
    const all = this.all();
    if (!(target in all)) return;
    delete all[target];
    await this.state.update(StorageKeys.threadDrafts, Object.keys(all).length ? all : undefined);
  }
}
