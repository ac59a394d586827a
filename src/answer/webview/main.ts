// Answer webview script (browser bundle, dist/webview.js). Reads the page the host rendered,
// shows a citation's quote, section and paper in a popover, keeps the follow-up draft, scroll
// position, open interaction and trace toggle with getState/setState, and posts typed
// messages (ids and markers only; the host validates them and re-checks every URL).
import {
  CITE_ACTIONS,
  FOLLOW_UP_MAX,
  type AnswerViewState,
  type CiteAction,
  type FollowUpMode,
  type HostMessage,
  type WebviewMessage,
} from '../protocol';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: AnswerViewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const $ = <T extends HTMLElement>(sel: string): T | null => document.querySelector<T>(sel);

function readInitial(): AnswerViewState | undefined {
  const raw = $('#answer')?.dataset.state;
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as AnswerViewState;
    return typeof v.threadId === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

const initial = readInitial();
const saved = vscode.getState() as Partial<AnswerViewState> | undefined;
const state: AnswerViewState | undefined = initial && {
  ...initial,
  // The page is rebuilt on every render; the draft and scroll of this same thread survive it.
  draft: initial.resetDraft
    ? ''
    : saved?.threadId === initial.threadId
      ? (saved.draft ?? initial.draft)
      : initial.draft,
  mode: (saved?.threadId === initial.threadId ? saved.mode : undefined) ?? initial.mode ?? 'pro',
  scrollY: saved?.threadId === initial.threadId && saved.interactionId === initial.interactionId ? saved.scrollY : 0,
};
if (state) delete state.resetDraft;
const save = (): void => {
  if (state) vscode.setState(state);
};
save();

// ---- citations popover ----------------------------------------------------------------------
const popover = $('#popover');
let opener: HTMLElement | null = null;

function closePopover(): void {
  if (!popover || popover.hidden) return;
  popover.hidden = true;
  popover.replaceChildren();
  opener?.focus();
  opener = null;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function button(label: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', label);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

function showCitation(link: HTMLAnchorElement): void {
  if (!popover) return;
  const marker = link.dataset.marker ?? '';
  const n = Number(link.dataset.n);
  const ref = document.querySelector<HTMLLIElement>(`li.reference[data-n="${Number.isInteger(n) ? n : -1}"]`);
  const quote = marker.includes('.')
    ? document.getElementById(`${(link.getAttribute('href') ?? '').slice(1)}-text`)
    : null;
  const quoteItem = quote?.closest<HTMLElement>('li.reference-quote');
  popover.replaceChildren();
  const title = el('h2', `[${marker}] ${ref?.querySelector('.reference-title')?.textContent ?? ''}`);
  title.id = 'popover-title';
  popover.append(title);
  if (quote) popover.append(el('blockquote', quote.textContent ?? '', 'popover-quote'));
  const section = quoteItem?.dataset.section;
  if (section) popover.append(el('p', section, 'popover-section'));
  const where = [
    ref?.querySelector('.reference-journal')?.textContent,
    ref?.querySelector('.reference-year')?.textContent,
  ]
    .filter(Boolean)
    .join(', ');
  if (where) popover.append(el('p', where, 'popover-paper'));
  const actions = el('div', undefined, 'popover-actions');
  if (ref?.dataset.url)
    actions.append(
      button(document.querySelector('button[data-action="openPaper"]')?.textContent ?? 'Open Paper', () =>
        vscode.postMessage({ type: 'openPaper', n }),
      ),
    );
  if (quote)
    actions.append(
      button(document.querySelector('button[data-action="copyQuote"]')?.textContent ?? 'Copy Quote', () =>
        vscode.postMessage({ type: 'copyQuote', marker }),
      ),
    );
  // The citations issue's actions, when the host rendered them for this reference (labels from its buttons).
  for (const action of CITE_ACTIONS) {
    const rendered = ref?.querySelector<HTMLButtonElement>(`button[data-action="${action}"]`);
    if (rendered) actions.append(button(rendered.textContent, () => vscode.postMessage({ type: action, n })));
  }
  actions.append(button('×', closePopover));
  actions.lastElementChild?.setAttribute('aria-label', 'Close');
  popover.append(actions);
  popover.hidden = false;
  popover.dataset.marker = marker;
  opener = link;
  (actions.firstElementChild as HTMLElement | null)?.focus();
}

document.addEventListener('click', (ev) => {
  const target = ev.target as Element | null;
  const cite = target?.closest<HTMLAnchorElement>('a.cite');
  if (cite) {
    ev.preventDefault();
    showCitation(cite);
    return;
  }
  const action = target?.closest<HTMLButtonElement>('button[data-action]');
  if (action) {
    if (action.dataset.action === 'openPaper') vscode.postMessage({ type: 'openPaper', n: Number(action.dataset.n) });
    else if (action.dataset.action === 'copyQuote')
      vscode.postMessage({ type: 'copyQuote', marker: action.dataset.marker ?? '' });
    else if ((CITE_ACTIONS as readonly string[]).includes(action.dataset.action ?? ''))
      vscode.postMessage({ type: action.dataset.action as CiteAction, n: Number(action.dataset.n) });
    return;
  }
  if (popover && !popover.hidden && target && !popover.contains(target)) closePopover();
});

document.addEventListener('keydown', (ev) => {
  if (ev.key === 'Escape') closePopover();
});

// ---- header controls ----------------------------------------------------------------------
$<HTMLSelectElement>('#interaction')?.addEventListener('change', (ev) => {
  const id = (ev.target as HTMLSelectElement).value;
  if (state) {
    state.interactionId = id;
    save();
  }
  vscode.postMessage({ type: 'selectInteraction', interactionId: id });
});
$<HTMLInputElement>('#trace')?.addEventListener('change', (ev) => {
  const on = (ev.target as HTMLInputElement).checked;
  if (state) {
    state.trace = on;
    save();
  }
  vscode.postMessage({ type: 'toggleTrace', on });
});
$('#export')?.addEventListener('click', () => vscode.postMessage({ type: 'export' }));
$('#insert-answer')?.addEventListener('click', () => vscode.postMessage({ type: 'insertAnswer' }));

// ---- follow-up box ------------------------------------------------------------------------
const text = $<HTMLTextAreaElement>('#followup-text');
const mode = $<HTMLSelectElement>('#followup-mode');
const send = $<HTMLButtonElement>('#followup-send');
const status = $('#followup-status');
if (text && state?.draft) text.value = state.draft;
if (mode && state?.mode) mode.value = state.mode;

function sendFollowUp(): void {
  if (!text || !mode || send?.disabled) return;
  const value = text.value;
  if (!value.trim()) {
    if (status) status.textContent = text.placeholder;
    return;
  }
  // Disabled at once, not when the host says 'sending': a double click would otherwise post the follow-up twice.
  if (send) send.disabled = true;
  vscode.postMessage({
    type: 'followUp',
    text: value.slice(0, FOLLOW_UP_MAX),
    mode: mode.value === 'deep' ? 'deep' : 'pro',
  });
}

text?.addEventListener('input', () => {
  if (state) {
    state.draft = text.value;
    save();
  }
});
mode?.addEventListener('change', () => {
  if (state) {
    state.mode = (mode.value === 'deep' ? 'deep' : 'pro') satisfies FollowUpMode;
    save();
  }
});
text?.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
    ev.preventDefault();
    sendFollowUp();
  }
});
send?.addEventListener('click', sendFollowUp);

window.addEventListener('message', (ev: MessageEvent<HostMessage>) => {
  const m = ev.data;
  if (m.type !== 'followUp') return;
  if (send) send.disabled = m.state === 'sending';
  if (status) status.textContent = m.message ?? '';
  if (m.state === 'running' && text && state) {
    // Accepted by the service: only now is the draft cleared.
    text.value = '';
    state.draft = '';
    save();
  }
});

// ---- scroll -------------------------------------------------------------------------------
if (state?.scrollY) window.scrollTo(0, state.scrollY);
let scrollTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('scroll', () => {
  clearTimeout(scrollTimer);
  scrollTimer = setTimeout(() => {
    if (state) {
      state.scrollY = window.scrollY;
      save();
    }
  }, 200);
});

vscode.postMessage({ type: 'ready' });
