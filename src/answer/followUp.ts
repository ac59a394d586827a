/**
 * The answer view's follow-up box, host side. The view does not send follow-ups itself: the composition root hands
 * it the one sender of briefs (ThreadCommands.followUp), so a follow-up from the view gets what every brief gets (the
 * checks, deep mode explained on a free plan, the draft kept, one send per thread, the ThreadWatcher with its Retry).
 * This file says in the page what became of it; the page keeps the text until it was accepted.
 */
import * as vscode from 'vscode';
import type { FollowUpMode, HostMessage } from './protocol';

const t = (s: string, ...args: (string | number)[]): string => vscode.l10n.t(s, ...args);

/** What the sender reports: `sent`, or why not (with the sentence already shown to the person, if any). */
export interface FollowUpOutcome {
  outcome: string;
  message?: string;
}

/** Sends a follow-up to a thread the way every brief is sent (ThreadCommands.followUp). */
export type SendFollowUp = (threadId: string, text: string, mode: FollowUpMode) => Promise<FollowUpOutcome>;

/**
 * Sends the page's follow-up and posts its states ('sending', then 'failed' with the reason); true when the service
 * accepted it (the caller then shows the new run). A sender that throws gets 'failed' posted before the error goes on.
 */
export async function sendFollowUp(
  send: SendFollowUp,
  threadId: string,
  text: string,
  mode: FollowUpMode,
  post: (m: HostMessage) => void,
): Promise<boolean> {
  if (!text.trim()) {
    post({ type: 'followUp', state: 'failed', message: t('Write a question first.') });
    return false;
  }
  post({ type: 'followUp', state: 'sending' });
  let out: FollowUpOutcome;
  try {
    out = await send(threadId, text, mode);
  } catch (err) {
    post({ type: 'followUp', state: 'failed', message: t('The follow-up was not sent; your text is kept here.') });
    throw err;
  }
  if (out.outcome === 'sent') return true;
  // The page keeps the text; it says why (an uncertain send says it may have arrived after all).
  const message =
    out.outcome === 'conflict'
      ? t(
          'The latest interaction is still running. Your follow-up is kept here; send it again when the answer is done.',
        )
      : out.outcome === 'busy'
        ? t('A follow-up to this thread is already being sent; your text is kept here.')
        : (out.message ?? t('The follow-up was not sent; your text is kept here.'));
  post({ type: 'followUp', state: 'failed', message });
  return false;
}
