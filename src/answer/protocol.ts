/**
 * Messages between the answer webview (src/answer/webview/main.ts) and its host (AnswerPanels).
 * Pure: no vscode, no DOM. Both sides import these types; the host runs `parseWebviewMessage`
 * on everything the webview posts before acting. Messages carry ids and markers only — never a
 * URL to open: the host looks the paper up in what it rendered and re-checks its URL.
 */

export const FOLLOW_UP_MAX = 10000;
export type FollowUpMode = 'pro' | 'deep';

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'openPaper'; n: number }
  | { type: 'copyQuote'; marker: string }
  | { type: 'selectInteraction'; interactionId: string }
  | { type: 'toggleTrace'; on: boolean }
  | { type: 'followUp'; text: string; mode: FollowUpMode }
  | { type: 'export' }
  /** Citation actions: the reference's number `n`; the host looks the paper up in what it rendered. */
  | { type: CiteAction; n: number }
  /** Insert Answer: the interaction shown, into the last active text editor. */
  | { type: 'insertAnswer' };

/** Per-citation actions of the citations issue (buttons in the references list and the popover). */
export type CiteAction = 'insertCitation' | 'copyBibtex' | 'copyReference';
export const CITE_ACTIONS: readonly CiteAction[] = ['insertCitation', 'copyBibtex', 'copyReference'];

/** Host → webview. */
export type HostMessage =
  { type: 'followUp'; state: 'sending' | 'running' | 'failed' | 'done'; message?: string } | { type: 'restoreScroll' };

/** What the webview keeps with getState/setState (and the serializer gets back after a reload). */
export interface AnswerViewState {
  threadId: string;
  interactionId?: string;
  trace?: boolean;
  draft?: string;
  mode?: FollowUpMode;
  scrollY?: number;
  /** Host → page only (in the page's initial data): the follow-up was accepted, clear the draft. */
  resetDraft?: boolean;
}

const ID = /^[A-Za-z0-9_.:-]{1,200}$/;
const MARKER = /^\d{1,4}(\.\d{1,4})?$/;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function only(o: Record<string, unknown>, keys: readonly string[]): boolean {
  return Object.keys(o).every((k) => keys.includes(k));
}

export const isThreadId = (v: unknown): v is string => typeof v === 'string' && ID.test(v);

/**
 * The message if it is exactly one of `WebviewMessage` (no extra fields, every field of the right
 * type and range), else undefined with the reason in `problem`.
 */
export function parseWebviewMessage(raw: unknown): { message: WebviewMessage } | { problem: string } {
  if (!isObj(raw)) return { problem: 'not an object' };
  const t = raw.type;
  switch (t) {
    case 'ready':
    case 'export':
    case 'insertAnswer':
      return only(raw, ['type']) ? { message: { type: t } } : { problem: `${t}: unexpected fields` };
    case 'openPaper':
    case 'insertCitation':
    case 'copyBibtex':
    case 'copyReference': {
      const n = raw.n;
      if (!only(raw, ['type', 'n']) || typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 9999)
        return { problem: `${t}: bad n` };
      return { message: { type: t, n } };
    }
    case 'copyQuote': {
      const m = raw.marker;
      if (!only(raw, ['type', 'marker']) || typeof m !== 'string' || !MARKER.test(m))
        return { problem: 'copyQuote: bad marker' };
      return { message: { type: t, marker: m } };
    }
    case 'selectInteraction': {
      const id = raw.interactionId;
      if (!only(raw, ['type', 'interactionId']) || !isThreadId(id))
        return { problem: 'selectInteraction: bad interactionId' };
      return { message: { type: t, interactionId: id } };
    }
    case 'toggleTrace': {
      const on = raw.on;
      if (!only(raw, ['type', 'on']) || typeof on !== 'boolean') return { problem: 'toggleTrace: bad on' };
      return { message: { type: t, on } };
    }
    case 'followUp': {
      const { text, mode } = raw;
      if (!only(raw, ['type', 'text', 'mode']) || typeof text !== 'string' || (mode !== 'pro' && mode !== 'deep'))
        return { problem: 'followUp: bad fields' };
      if (text.length > FOLLOW_UP_MAX) return { problem: 'followUp: text too long' };
      return { message: { type: t, text, mode } };
    }
    default:
      return { problem: `unknown type ${typeof t === 'string' ? JSON.stringify(t.slice(0, 40)) : typeof t}` };
  }
}

/** Restored state from the serializer (untrusted shape: it came from the webview). */
export function parseViewState(raw: unknown): AnswerViewState | undefined {
  if (!isObj(raw) || !isThreadId(raw.threadId)) return undefined;
  const s: AnswerViewState = { threadId: raw.threadId };
  if (isThreadId(raw.interactionId)) s.interactionId = raw.interactionId;
  if (typeof raw.trace === 'boolean') s.trace = raw.trace;
  if (typeof raw.draft === 'string') s.draft = raw.draft.slice(0, FOLLOW_UP_MAX);
  if (raw.mode === 'pro' || raw.mode === 'deep') s.mode = raw.mode;
  if (typeof raw.scrollY === 'number' && Number.isFinite(raw.scrollY)) s.scrollY = raw.scrollY;
  return s;
}
