/**
 * The answer view's HTML, built on the host: the page (a Content-Security-Policy with a fresh nonce per render, the one
 * external script, the stylesheet) and the body of a thread's answer (header and stats, toolbar, the answer, the trace,
 * the follow-up box). Kept apart from the panel so that all the view shows is in one place: the service's text reaches
 * it only as the renderer's output (`renderAnswerDetailed`: raw HTML off, https links only, no images) or through
 * `escapeHtml`.
 */
import { randomBytes } from 'crypto';
import * as vscode from 'vscode';
import type { Interaction, Thread } from '../api/index';
import type { RenderedAnswer } from '../render/answer';
import { escapeHtml } from '../render/escape';
import type { AnswerViewState } from './protocol';

const t = (s: string, ...args: (string | number)[]): string => vscode.l10n.t(s, ...args);

/** What a thread's answer body is built from. */
export interface AnswerBodyInput {
  threadId: string;
  thread: Thread;
  /** The interaction shown (the chosen one, else the latest). */
  interaction: Interaction | undefined;
  rendered: RenderedAnswer;
  /** The trace toggle. */
  trace: boolean;
  /** State the webview last saved (draft, mode), seeded into the page's initial data. */
  seed: AnswerViewState | undefined;
  /** Citations are available: the Insert Answer button is shown (when there is an answer). */
  insertAnswer: boolean;
}

export function answerBody(o: AnswerBodyInput): string {
  const { thread, interaction, rendered } = o;
  const e = escapeHtml;
  const stats = interaction?.stats;
  const num = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '–');
  const options = thread.interactions
    .map((i, k) => {
      const label = t('Interaction {0} ({1})', k + 1, String(i.status));
      return `<option value="${e(i.interaction_id)}"${i === interaction ? ' selected' : ''}>${e(label)}</option>`;
    })
    .join('');
  const status = interaction?.status ?? thread.status;
  const running = status === 'running';
  const answer =
    running && !interaction?.response
      ? `<p role="status">${e(t('The agent is still working on this answer; the view updates when it is done.'))}</p>`
      : status === 'failed'
        ? `<p role="alert">${e(t('This run failed. A failed run costs nothing; ask again with a follow-up.'))}</p>${rendered.html}`
        : rendered.html;
  const trace = o.trace
    ? `<section class="trace" aria-label="${e(t('Agent trace'))}"><h2>${e(t('Agent trace'))}</h2><pre>${e(typeof thread.trace === 'string' ? thread.trace : t('No trace available.'))}</pre></section>`
    : '';
  const seed = o.seed;
  const initial = JSON.stringify({
    threadId: o.threadId,
    interactionId: interaction?.interaction_id,
    trace: o.trace,
    draft: seed?.draft,
    mode: seed?.mode,
    resetDraft: seed?.resetDraft,
  }).replace(/</g, '\\u003c');
  return `<header class="thread-header">
<h1 id="thread-title">${e(thread.title ?? t('Research Answer'))}</h1>
<dl class="meta">
<div><dt>${e(t('Mode'))}</dt><dd>${e(String(interaction?.mode ?? '–'))}</dd></div>
<div><dt>${e(t('Status'))}</dt><dd class="status status-${e(String(status))}">${e(String(status))}</dd></div>
<div><dt>${e(t('Retrieved'))}</dt><dd>${num(stats?.retrieved)}</dd></div>
<div><dt>${e(t('Screened'))}</dt><dd>${num(stats?.screened)}</dd></div>
<div><dt>${e(t('Included'))}</dt><dd>${num(stats?.included)}</dd></div>
</dl>
<div class="toolbar" role="toolbar" aria-label="${e(t('Answer actions'))}">
${thread.interactions.length > 1 ? `<label>${e(t('Interaction'))} <select id="interaction">${options}</select></label>` : ''}
<label class="toggle"><input type="checkbox" id="trace"${o.trace ? ' checked' : ''}> ${e(t('Show agent trace'))}</label>
<button type="button" id="export">${e(t('Export as Markdown'))}</button>
${o.insertAnswer && interaction?.response ? `<button type="button" id="insert-answer" title="${e(t('Write this answer into the last active editor, with its citations and bibliography entries'))}">${e(t('Insert Answer'))}</button>` : ''}
</div>
</header>
<main id="answer" aria-labelledby="thread-title" data-state="${e(initial)}">
${answer}
</main>
${trace}
<div id="popover" class="popover" role="dialog" aria-modal="false" aria-labelledby="popover-title" hidden></div>
<section class="followup" aria-label="${e(t('Follow-up question'))}">
<label for="followup-text">${e(t('Ask a follow-up'))}</label>
<textarea id="followup-text" rows="3" maxlength="10000" placeholder="${e(t('Ctrl+Enter to send'))}"></textarea>
<div class="followup-row">
<label>${e(t('Mode'))} <select id="followup-mode"><option value="pro">pro</option><option value="deep">deep</option></select></label>
<button type="button" id="followup-send">${e(t('Send Follow-up'))}</button>
<span id="followup-status" role="status" aria-live="polite"></span>
</div>
</section>`;
}

/** The whole page; `script` false for the loading/error notes (nothing to interact with, no 'ready'). */
/** A page of one sentence (escaped) in place of an answer, without the script; `role` for assistive technology. */
export function notePage(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  nonce: string,
  text: string,
  role: 'status' | 'alert' = 'status',
): string {
  return answerPage(webview, extensionUri, nonce, `<p role="${role}">${escapeHtml(text)}</p>`, false);
}

export function answerPage(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  nonce: string,
  body: string,
  script = true,
): string {
  const css = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'answer.css'));
  const js = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const src = webview.cspSource;
  const csp = `default-src 'none'; img-src ${src}; style-src ${src}; script-src 'nonce-${nonce}'; font-src ${src}`;
  return `<!DOCTYPE html>
<html lang="${escapeHtml(vscode.env.language)}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${css.toString()}">
<title>${escapeHtml(t('Research Answer'))}</title>
</head>
<body>
${body}
${script ? `<script nonce="${nonce}" src="${js.toString()}"></script>` : ''}
</body>
</html>`;
}

/** A nonce for the page's Content-Security-Policy (letters and digits, from 18 random bytes). */
export function randomNonce(): string {
  return randomBytes(18)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '');
}
