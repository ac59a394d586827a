/**
 * The answer view's HTML, built on the host: the page (a Content-Security-Policy with a fresh nonce per render, the one
 * external script, the stylesheet) and the body of a thread's answer (header and stats, toolbar, the answer, the trace,
 * the follow-up box). Kept apart from the panel so that all the view shows is in one place: the service's text reaches
 * it only as the renderer's output (`renderAnswerDetailed`: raw HTML off, https links only, no images) or through
 * `escapeHtml`.
 */
import * as vscode from 'vscode';
import type { Interaction, Thread } from '../api/index';
import type { RenderedAnswer, RenderLabels } from '../render/answer';
import { escapeHtml } from '../render/escape';
import { webviewPage } from '../platform/webviewPage';
import type { AnswerViewState } from './protocol';
import { briefGist, threadLabel } from '../threads/briefGist';
import { describeThreadFilters, type SentLog } from '../threads/sentLog';
import { statusLabel } from '../threads/statusWords';

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
  /** The thread's name as shown (the service's title, else the brief's gist: briefGist.ts). */
  title: string;
  /** Each turn's question by interaction id (the service's text, else what was sent from here). */
  questions: ReadonlyMap<string, string>;
  /** The filters the shown turn ran under ('' none); undefined when not known (not sent from this machine). */
  filters: string | undefined;
}

/** The renderer's labels (`renderAnswerDetailed`), in the writer's language. */
export function answerLabels(): RenderLabels {
  return {
    references: t('References'),
    citation: t('Citation'),
    openPaper: t('Open Paper'),
    copyQuote: t('Copy Quote'),
    section: t('Section'),
    image: t('Image'),
    untitled: t('Untitled paper'),
    insertCitation: t('Insert Citation'),
    copyBibtex: t('Copy BibTeX'),
    copyReference: t('Copy Reference'),
  };
}

/**
 * The thread's name, each turn's question and the shown turn's filters. A question is the service's when its thread
 * data has one (the emulator's does; the spec names none), else what was sent from this machine; filters are known only
 * for turns sent from here.
 */
export function turnTexts(
  thread: Thread,
  interaction: Interaction | undefined,
  sent: Pick<SentLog, 'first' | 'turn'> | undefined,
): Pick<AnswerBodyInput, 'title' | 'questions' | 'filters'> {
  const questions = new Map<string, string>();
  for (const i of thread.interactions) {
    const q =
      typeof i.input_message === 'string' ? i.input_message : sent?.turn(thread.thread_id, i.interaction_id)?.question;
    if (q?.trim()) questions.set(i.interaction_id, q);
  }
  const turn = interaction && sent?.turn(thread.thread_id, interaction.interaction_id);
  return {
    title: threadLabel(thread.title, sent?.first(thread.thread_id)?.gist) || t('Research Answer'),
    questions,
    filters: turn ? describeThreadFilters(turn.filters) : undefined,
  };
}

/** The question a turn asked, above its answer; a long one (a selection brief) folded under its gist. */
function questionBlock(question: string): string {
  const e = escapeHtml;
  const text = question.trim();
  const body = `<p class="question-text">${e(text)}</p>`;
  return [...text].length > 600
    ? `<details class="question"><summary><span class="question-label">${e(t('Question'))}</span> ${e(briefGist(text, 120))}</summary>${body}</details>`
    : `<section class="question" aria-label="${e(t('Question'))}"><h2 class="question-label">${e(t('Question'))}</h2>${body}</section>`;
}

export function answerBody(o: AnswerBodyInput): string {
  const { thread, interaction, rendered } = o;
  const e = escapeHtml;
  const stats = interaction?.stats;
  const num = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '–');
  const options = thread.interactions
    .map((i, k) => {
      const q = o.questions.get(i.interaction_id);
      const label = q
        ? t('Interaction {0}: {1} ({2})', k + 1, briefGist(q, 50), statusLabel(i.status))
        : t('Interaction {0} ({1})', k + 1, statusLabel(i.status));
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
  const question = interaction ? o.questions.get(interaction.interaction_id) : undefined;
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
<h1 id="thread-title">${e(o.title)}</h1>
<dl class="meta">
<div><dt>${e(t('Mode'))}</dt><dd>${e(String(interaction?.mode ?? '–'))}</dd></div>
<div><dt>${e(t('Status'))}</dt><dd class="status status-${e(String(status))}">${e(statusLabel(status))}</dd></div>
<div><dt>${e(t('Retrieved'))}</dt><dd>${num(stats?.retrieved)}</dd></div>
<div><dt>${e(t('Screened'))}</dt><dd>${num(stats?.screened)}</dd></div>
<div><dt>${e(t('Included'))}</dt><dd>${num(stats?.included)}</dd></div>
${o.filters === undefined ? '' : `<div><dt>${e(t('Filters'))}</dt><dd class="filters">${e(o.filters || t('none (sent without search filters)'))}</dd></div>`}
</dl>
<div class="toolbar" role="toolbar" aria-label="${e(t('Answer actions'))}">
${thread.interactions.length > 1 ? `<label>${e(t('Interaction'))} <select id="interaction">${options}</select></label>` : ''}
<label class="toggle"><input type="checkbox" id="trace"${o.trace ? ' checked' : ''}> ${e(t('Show agent trace'))}</label>
<button type="button" id="export">${e(t('Export as Markdown'))}</button>
${o.insertAnswer && interaction?.response ? `<button type="button" id="insert-answer" title="${e(t('Write this answer into the last active editor, with its citations and bibliography entries'))}">${e(t('Insert Answer'))}</button>` : ''}
</div>
</header>
<main id="answer" aria-labelledby="thread-title" data-state="${e(initial)}">
${question ? questionBlock(question) : ''}
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
  return webviewPage({
    webview,
    extensionUri,
    nonce,
    stylesheet: 'answer.css',
    script: script ? 'webview.js' : undefined,
    title: t('Research Answer'),
    body,
  });
}
