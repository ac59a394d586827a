/**
 * The prompts of the thread commands: the input box a brief is typed in (for papers selected in the Research view)
 * and the pick of mode and filters. The box is an InputBox, not `showInputBox`, because the text typed in it must
 * survive Escape: `showInputBox` resolves to undefined and the text is gone, while the README promises that an unsent
 * brief is never lost.
 */
import * as vscode from 'vscode';
import type { ThreadModeName } from './persisted';
import { MAX_BRIEF } from './threadSender';

/** What became of the box: the text sent on (Enter), or the text it held when the writer closed it. */
export type BriefAnswer = { accepted: string } | { dismissed: string };

export function briefBox(
  o: { title: string; draft?: string; reason?: string },
  onShown?: (box: vscode.InputBox) => void,
): Promise<BriefAnswer> {
  const box = vscode.window.createInputBox();
  box.title = o.title;
  box.value = o.draft ?? '';
  // A restored draft is continued, not replaced by the first key pressed.
  if (o.draft) box.valueSelection = [o.draft.length, o.draft.length];
  box.ignoreFocusOut = true;
  box.prompt = o.draft
    ? vscode.l10n.t(
        'Your unsent draft is restored{0}. The agent works on its own and asks no questions: say everything it needs.',
        o.reason ? ` (${o.reason})` : '',
      )
    : vscode.l10n.t(
        'The whole research brief (1 to {0} characters): the agent works on its own and asks no questions. For a longer brief, select it in an editor and use Ask the Research Agent about Selection.',
        MAX_BRIEF,
      );
  box.placeholder = vscode.l10n.t('e.g. Does creatine supplementation improve memory in healthy adults?');
  const tooLong = (v: string): string | undefined => {
    const n = [...v].length;
    return n > MAX_BRIEF ? vscode.l10n.t('{0} characters: the service accepts at most {1}.', n, MAX_BRIEF) : undefined;
  };
  return new Promise((resolve) => {
    let answer: BriefAnswer | undefined;
    const subs = [
      box.onDidChangeValue((v) => (box.validationMessage = tooLong(v))),
      box.onDidAccept(() => {
        if (tooLong(box.value)) return;
        answer = { accepted: box.value };
        box.hide();
      }),
      box.onDidHide(() => {
        for (const s of subs) s.dispose();
        // Read when the box closes: Escape keeps what was typed (the caller keeps it as a draft).
        resolve(answer ?? { dismissed: box.value });
        box.dispose();
      }),
    ];
    box.show();
    onShown?.(box);
  });
}

/** The mode pick; when search filters are active it asks whether the thread runs under them, naming them. */
export async function askModeAndFilters(
  filters: string,
  free: boolean,
): Promise<{ mode: ThreadModeName; useFilters: boolean } | undefined> {
  type Item = vscode.QuickPickItem & { mode: ThreadModeName; useFilters: boolean };
  const items: Item[] = [];
  const proLabel = vscode.l10n.t('Pro: reads about 20 papers');
  const deepLabel = vscode.l10n.t('Deep: reads about 50 papers and writes a structured report');
  const deepNote = free
    ? vscode.l10n.t('needs a paid plan (this key is on the free plan)')
    : vscode.l10n.t('costs more calls than pro');
  for (const useFilters of filters ? [true, false] : [false]) {
    const suffix = useFilters
      ? vscode.l10n.t(' · filters: {0}', filters)
      : filters
        ? vscode.l10n.t(' · no filters')
        : '';
    items.push({ label: proLabel, description: suffix.replace(/^ · /, ''), mode: 'pro', useFilters });
    items.push({ label: deepLabel, description: `${deepNote}${suffix}`, mode: 'deep', useFilters });
  }
  const pick = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Research agent mode'),
    ignoreFocusOut: true,
  });
  return pick ? { mode: pick.mode, useFilters: pick.useFilters } : undefined;
}
