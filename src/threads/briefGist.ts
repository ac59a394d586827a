/**
 * What a thread is called where Research Desk names it itself (the status bar, notifications, the Threads view, the
 * answer view). Pure: no `vscode`, unit-tested in plain Node.
 *
 * The service generates a thread's title, and that title is shown when there is one. But a brief made from a
 * selection starts with the same instruction sentence every time, and a title made from it (or the sentence itself)
 * would name every such thread alike; so a title that echoes the instruction gives way to the gist of the selection:
 * its first words. A brief's gist is its first words.
 */

/** The brief of Ask about Selection with no instructions: the passage follows in triple quotes. */
export const SELECTION_QUESTION =
  'What does the research say about this passage from my draft? Say which claims the evidence supports, which it contradicts, and how strong the evidence is.';
/** The line before the passage when the writer gave instructions. */
const PASSAGE_LEAD = 'The passage from my draft:';
const FENCE = '"""';

/** The brief Ask about Selection sends (English: it is read by the agent, not shown as the extension's text). */
export function selectionBrief(selection: string, instructions?: string): string {
  const quoted = selection.trim();
  const ask = instructions?.trim();
  return ask
    ? `${ask}\n\n${PASSAGE_LEAD}\n${FENCE}\n${quoted}\n${FENCE}`
    : `${SELECTION_QUESTION}\n\n${FENCE}\n${quoted}\n${FENCE}`;
}

/** The passage of a brief `selectionBrief` wrote; undefined for any other text. */
export function selectionOf(brief: string): string | undefined {
  const tail = `\n${FENCE}`;
  if (!brief.endsWith(tail)) return undefined;
  const plainHead = `${SELECTION_QUESTION}\n\n${FENCE}\n`;
  let open = plainHead.length;
  if (!brief.startsWith(plainHead)) {
    const lead = `\n\n${PASSAGE_LEAD}\n${FENCE}\n`;
    const at = brief.indexOf(lead);
    if (at < 0) return undefined;
    open = at + lead.length;
  }
  const close = brief.length - tail.length;
  return close >= open ? brief.slice(open, close) : undefined;
}

/** Text on one line: every run of white space (line breaks included) one space, trimmed. */
const oneLine = (s: string): string => s.replace(/\s+/gu, ' ').trim();

/** The first words of `text` on one line, at most `max` characters, cut between words (`…` when cut). */
export function gist(text: string, max = 60): string {
  const line = oneLine(text);
  const chars = [...line];
  if (chars.length <= max) return line;
  const head = chars.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  // A first word longer than half the room is cut inside (a URL, a long compound, a script without spaces).
  const cut = space > head.length / 2 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:.–—-]+$/u, '')}…`;
}

/**
 * The gist of a brief: for a selection brief, the passage's first words; else the brief's first line that
 * has a letter or digit, without Markdown heading or list markers.
 */
export function briefGist(brief: string, max = 60): string {
  const passage = selectionOf(brief);
  if (passage !== undefined && passage.trim()) return gist(passage, max);
  const line = brief.split('\n').find((l) => /[\p{L}\p{N}]/u.test(l)) ?? '';
  return gist(line.replace(/^\s*(?:#{1,6}\s+|[-*+>]\s+)+/u, ''), max);
}

/** True when a title only repeats the instruction of a selection brief (the same for every such thread). */
export function echoesInstruction(title: string): boolean {
  return /passage from my draft/iu.test(title);
}

/** The name to show: the service's title unless it is empty or echoes the instruction, else our gist; '' if none. */
export function threadLabel(serviceTitle: string | null | undefined, ownGist: string | undefined): string {
  const title = typeof serviceTitle === 'string' ? serviceTitle.trim() : '';
  if (title && !(ownGist && echoesInstruction(title))) return title;
  return ownGist?.trim() || title;
}
