/**
 * What this machine sent per thread turn: the question as sent, its gist and the filters it ran under. The service's
 * thread data need not carry the question (the spec lists no `input_message` on an interaction) and carries no
 * filters at all, so the answer view and the Threads view read them here; kept in globalState (bounded) so that they
 * outlive the run and the window.
 */
import type * as vscode from 'vscode';
import { StorageKeys } from '../platform/ids';
import { describeFilters } from '../search/filterModel';
import { plainText } from '../shared/plainText';

export interface SentTurn {
  threadId: string;
  interactionId: string;
  /** The brief or follow-up as sent (clipped to QUESTION_MAX characters). */
  question: string;
  /** What the thread is called when the service's title does not tell threads apart (briefGist). */
  gist: string;
  /** The thread filters sent with it; null when it was sent without filters. */
  filters: Record<string, unknown> | null;
  at: number;
}

export const SENT_TURNS_MAX = 200;
export const QUESTION_MAX = 4000;

function isTurn(v: unknown): v is SentTurn {
  const t = v as Partial<SentTurn> | null;
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof t.threadId === 'string' &&
    typeof t.interactionId === 'string' &&
    typeof t.question === 'string' &&
    typeof t.gist === 'string' &&
    (t.filters === null || (typeof t.filters === 'object' && !Array.isArray(t.filters))) &&
    typeof t.at === 'number'
  );
}

export class SentLog {
  constructor(private readonly state: vscode.Memento) {}

  private all(): SentTurn[] {
    const v = this.state.get<unknown>(StorageKeys.sentTurns);
    return Array.isArray(v) ? v.filter(isTurn) : [];
  }

  async record(turn: Omit<SentTurn, 'at'>): Promise<void> {
    const question = [...turn.question];
    const kept: SentTurn = {
      ...turn,
      question: question.length > QUESTION_MAX ? `${question.slice(0, QUESTION_MAX - 1).join('')}…` : turn.question,
      at: Date.now(),
    };
    const rest = this.all().filter((t) => !(t.threadId === turn.threadId && t.interactionId === turn.interactionId));
    // Bounded: the oldest turns go first.
    await this.state.update(StorageKeys.sentTurns, [...rest, kept].slice(-SENT_TURNS_MAX));
  }

  turn(threadId: string, interactionId: string | undefined): SentTurn | undefined {
    return interactionId
      ? this.all().find((t) => t.threadId === threadId && t.interactionId === interactionId)
      : undefined;
  }

  /** The thread's first turn sent from here (its gist names the thread). */
  first(threadId: string): SentTurn | undefined {
    return this.all().find((t) => t.threadId === threadId);
  }

  /** The thread's latest turn sent from here. */
  latest(threadId: string): SentTurn | undefined {
    return this.all().findLast((t) => t.threadId === threadId);
  }
}

/** A thread's filters in the words of the search view's description ('' when there are none). */
export function describeThreadFilters(filters: object | null | undefined): string {
  return filters ? plainText(describeFilters(filters)) : '';
}
