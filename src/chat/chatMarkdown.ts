/**
 * What the @research participant writes into the chat view, as Markdown: papers found (numbered, each with a Cite
 * link), an agent's answer (safe Markdown, see answerMarkdown.ts) with its references and quotes, and the monthly
 * calls. Every piece of service text is escaped; a paper's link passes the one link rule; the only command links are
 * the ones built here, to the commands the chat's Markdown trusts (`CHAT_COMMANDS`), with JSON arguments encoded so
 * that no text can end the link early. No vscode.
 */
import type { CitePaper } from '../citations/types';
import { Commands } from '../platform/ids';
import { inertMarkdown, markdownLink } from '../shared/markdown';
import { plainText } from '../shared/plainText';
import { studyTypeLabel } from '../shared/studyTypes';
import { safeChatMarkdown } from './answerMarkdown';
import type { AnswerRecord } from './threadToolInput';
import type { PaperRecord } from './toolInput';

/** The commands the participant's Markdown may link to (MarkdownString.isTrusted.enabledCommands). */
export const CHAT_COMMANDS: readonly string[] = [Commands.insertCitation, Commands.openThread, Commands.insertAnswer];

/** A command link's destination: the arguments as JSON, percent-encoded, parentheses included. */
export function commandUri(command: string, args: readonly unknown[]): string {
  const json = encodeURIComponent(JSON.stringify(args)).replace(
    /[()'!*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `command:${command}?${json}`;
}

/** `[label](command:…)`: the label escaped. */
export function commandLink(label: string, command: string, args: readonly unknown[]): string {
  return `[${inertMarkdown(label)}](${commandUri(command, args)})`;
}

/** A line about a paper: its title (a link by the link rule), first authors, year, journal, design, citations. */
function paperLine(p: PaperRecord): string {
  const title = `**${markdownLink(p.title || 'Untitled', p.url)}**`;
  const facts = [
    p.authors.length ? p.authors.join(', ') : '',
    p.year !== undefined ? String(p.year) : '',
    p.journal ? `*${inertMarkdown(p.journal)}*` : '',
  ].filter(Boolean);
  const evidence = [
    p.studyType ? inertMarkdown(studyTypeLabel(p.studyType)) : '',
    p.citations !== undefined ? `${p.citations} citations` : '',
  ].filter(Boolean);
  return [title, facts.map((f) => (f.startsWith('*') ? f : inertMarkdown(f))).join(' · '), evidence.join(' · ')]
    .filter(Boolean)
    .join(' — ');
}

export interface PaperListOptions {
  /** The paper Insert Citation gets for record `n` (undefined: no Cite link). */
  citePaper: (record: PaperRecord) => CitePaper | undefined;
  /** Labels, localised by the caller. */
  labels: { cite: string; key: string };
}

/** The papers numbered as the records are, each with its takeaway and a Cite link. */
export function paperListMarkdown(records: readonly PaperRecord[], options: PaperListOptions): string {
  return records
    .map((p) => {
      const cite = options.citePaper(p);
      const actions = [
        `${inertMarkdown(options.labels.key)} \`${p.citeKey.replace(/`/g, '')}\``,
        cite ? commandLink(options.labels.cite, Commands.insertCitation, [cite]) : '',
      ]
        .filter(Boolean)
        .join(' · ');
      const lines = [`${p.n}. ${paperLine(p)}`];
      if (p.takeaway) lines.push(`   > ${inertMarkdown(p.takeaway)}`, '');
      lines.push(`   ${actions}`);
      return lines.join('\n');
    })
    .join('\n\n');
}

export interface AnswerOptions {
  /** The paper Insert Citation gets for a cited paper (undefined: no Cite link). */
  citePaper: (paper: NonNullable<AnswerRecord['papers']>[number]) => CitePaper | undefined;
  labels: { references: string; cite: string; untitled: string };
}

/** An answer: its text as safe Markdown, then the cited papers with their quotes and Cite links. */
export function answerMarkdown(record: AnswerRecord, options: AnswerOptions): string {
  const out: string[] = [];
  if (record.answer) out.push(safeChatMarkdown(record.answer));
  if (record.papers?.length) {
    out.push(`**${inertMarkdown(options.labels.references)}**`);
    out.push(
      record.papers
        .map((p) => {
          const where = [p.journal ? `*${inertMarkdown(p.journal)}*` : '', p.year !== undefined ? String(p.year) : '']
            .filter(Boolean)
            .join(', ');
          const cite = options.citePaper(p);
          const head = [
            `${p.n}. **${inertMarkdown(p.title || options.labels.untitled)}**`,
            where,
            cite ? commandLink(options.labels.cite, Commands.insertCitation, [cite]) : '',
          ]
            .filter(Boolean)
            .join(' — ');
          const quotes = p.quotes.map((q) => `   > \\[${inertMarkdown(q.marker)}\\] ${inertMarkdown(q.quote)}`);
          return [head, ...quotes].join('\n');
        })
        .join('\n\n'),
    );
  }
  return out.join('\n\n');
}

/** Text for a heading line of the chat: plain, bounded, escaped. */
export function chatText(text: string | null | undefined, max = 200): string {
  return inertMarkdown(plainText(text, max));
}
