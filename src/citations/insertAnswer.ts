/**
 * The answer view's side of citations.
 *
 * - Per-reference actions: Insert Citation / Copy BibTeX / Copy Reference run the citation commands with the
 *   reference as a CitePaper (the full search metadata when the paper was seen in the results, else what the
 *   citation carries: title, year, journal, https URL, authors). Insert Citation goes to the last active text
 *   editor (the commands' `targetEditor()`), never the webview.
 * - An answer's references become recent papers when it is shown (completion and the Quick Pick offer them).
 * - Insert Answer: the interaction shown, at the cursor of the last active text editor, its `[n.m]`/`[n]` markers
 *   turned into the document's citations (src/bib/answer.ts), every cited paper added to the bibliography (its
 *   bytes appended first, put back if the text cannot be inserted; one Undo in the document removes the text). Per
 *   flavour:
 *   In every flavour the answer's headings become bold paragraphs (the answer adds no sections to the document).
 *     pandoc (md, qmd, Rmd)  the Markdown; quotes as footnotes when `researchDesk.citations.quotesAsFootnotes`, with
 *                            labels no footnote of the document uses;
 *     latex / typst          the Markdown written in the document's markup (src/bib/markup.ts; every special
 *                            character escaped); quotes are not inserted (the setting is Pandoc only);
 *     plain                  APA in-text citations "(Smith et al., 2020)" and an APA reference list after the
 *                            answer; no bibliography file is written.
 *   Markers without a matching citation stay as written and are reported.
 */
import * as vscode from 'vscode';
import { showError, showInfo, showWarning, statusMessage } from '../platform/notify';
import type { PaperLookup } from './lookup';
import type { AnswerCitationActions, ShownAnswer } from '../answer/answerPanel';
import type { CiteAction } from '../answer/protocol';
import { isThreadId } from '../answer/protocol';
import type { Citation, Thread } from '../api/index';
import { answerForDocument, convertAnswer } from '../bib/answer';
import { formatReference, inTextCitation } from '../bib/reference';
import { flavourOf, type CiteFlavour } from '../bib/syntax';
import { Commands } from '../platform/ids';
import { indexCitations, type ReferenceEntry } from '../render/references';
import type { LogSink } from '../platform/logger';
import { citationSettings, quotesAsFootnotes } from '../platform/settings';
import { CitationError } from './errors';
import type { BibliographyService, CitePaper, RecentPapers } from './types';

export interface AnswerCitationsDeps {
  bibliographies: BibliographyService;
  recent: RecentPapers;
  /** What an answer panel shows (AnswerPanels.shown). */
  shown: (threadId?: string) => ShownAnswer | undefined;
  /** The thread from the service when no panel shows it (Insert Answer from the command with a thread id). */
  getThread: (threadId: string) => Promise<Thread>;
  /** The text editor citations go to: the active one, else the last active (CitationCommands.targetEditor). */
  targetEditor: () => Promise<vscode.TextEditor | undefined>;
  /** Fills in what the answer's citations lack (authors, DOI) from a search, as the setting allows. */
  lookup?: PaperLookup;
  log: LogSink;
}

/** What Insert Answer did (the command's return value; tests read it). */
export interface InsertAnswerResult {
  done: boolean;
  message?: string;
  /** Keys cited, in order of first use. */
  keys?: string[];
  /** Markers left as written ("4", "1.9"). */
  unresolved?: string[];
  /** The bibliography written to (absent for plain documents or an answer without citations). */
  bibliography?: vscode.Uri;
  /** The text inserted. */
  text?: string;
  flavour?: CiteFlavour;
}

const COMMAND_OF: Record<CiteAction, string> = {
  insertCitation: Commands.insertCitation,
  copyBibtex: Commands.copyBibtex,
  copyReference: Commands.copyReference,
};

/** The paper behind a reference of an answer: the search's metadata when known, else the citation's. */
export function citePaperOfReference(ref: ReferenceEntry, recent?: RecentPapers): CitePaper {
  const known = ref.paperId ? recent?.byId(ref.paperId) : undefined;
  if (known) return known;
  const paper: CitePaper = {
    title: ref.title ?? null,
    publish_year: ref.year ?? null,
    journal_name: ref.journal ?? null,
    url: ref.url ?? null,
  };
  if (ref.paperId) paper.id = ref.paperId;
  if (ref.authors.length) paper.authors = [...ref.authors];
  return paper;
}

export class AnswerCitations implements AnswerCitationActions {
  /** The outcome of the last Insert Answer (tests). */
  last: InsertAnswerResult | undefined;

  constructor(private readonly deps: AnswerCitationsDeps) {}

  shown(references: readonly ReferenceEntry[]): void {
    // Most recent first: the answer's first reference ends up on top. A paper already known from a search keeps its
    // full metadata (it is only moved up).
    this.deps.recent.remember(references.map((r) => citePaperOfReference(r, this.deps.recent)));
  }

  async run(action: CiteAction, reference: ReferenceEntry): Promise<void> {
    const paper = citePaperOfReference(reference, this.deps.recent);
    const target = action === 'insertCitation' ? vscode.window.activeTextEditor?.document.uri : undefined;
    const completed = this.deps.lookup ? await this.deps.lookup.complete([paper], target) : [paper];
    if (!completed) return;
    await vscode.commands.executeCommand(COMMAND_OF[action], completed[0] ?? paper);
  }

  private fail(message: string, level: 'info' | 'warning' | 'error' = 'warning'): InsertAnswerResult {
    void (level === 'error' ? showError(message) : level === 'info' ? showInfo(message) : showWarning(message));
    return (this.last = { done: false, message });
  }

  /** Insert Answer (button of the answer view; command researchDesk.insertAnswer with an optional thread id). */
  async insertAnswer(threadIdArg?: unknown): Promise<InsertAnswerResult> {
    const threadId = isThreadId(threadIdArg) ? threadIdArg : undefined;
    let shown = this.deps.shown(threadId);
    if (!shown && threadId) {
      const thread = await this.deps.getThread(threadId);
      const interaction = thread.interactions[thread.interactions.length - 1];
      shown = { thread, interaction, references: indexCitations(interaction?.citations, '').references };
    }
    if (!shown) return this.fail(vscode.l10n.t('Open an answer first, then insert it.'), 'info');
    const interaction = shown.interaction;
    const response = typeof interaction?.response === 'string' ? interaction.response : '';
    if (!response.trim())
      return this.fail(vscode.l10n.t('This answer has no text yet; insert it when the agent is done.'), 'info');
    const editor = await this.deps.targetEditor();
    if (!editor)
      return this.fail(
        vscode.l10n.t('Open the document to write the answer into (a text editor) first, then run Insert Answer.'),
      );
    const document = editor.document;
    if (vscode.workspace.fs.isWritableFileSystem(document.uri.scheme) === false)
      return this.fail(
        vscode.l10n.t('This document is read-only: open a document you can edit to insert the answer.'),
        'error',
      );
    const flavour = flavourOf(document.languageId, document.fileName);
    const settings = citationSettings(document.uri);
    const footnotes = quotesAsFootnotes(document.uri);
    const newline = document.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';

    // Citations keyed by number: a citation without paper_id still resolves (convertAnswer maps paper_id → key).
    const refByN = new Map(shown.references.map((r) => [r.n, r]));
    const citations: Citation[] = (interaction?.citations ?? [])
      .filter((c) => refByN.has(c.n))
      .map((c) => ({ ...c, paper_id: `#${c.n}` }));
    const idOf = (n: number): string => `#${n}`;
    // Which papers the text cites, in order of first use (a dry run with every citation resolvable).
    const probe = convertAnswer(response, citations, {
      flavour: 'plain',
      keys: new Map(citations.map((c) => [idOf(c.n), idOf(c.n)])),
    });
    const citedNs = probe.keys.map((k) => Number(k.slice(1)));
    const answered = citedNs.map((n) => citePaperOfReference(refByN.get(n)!, this.deps.recent));
    // The answer's citations lack authors and DOIs: completed from a search where the writer allows it.
    const papers = this.deps.lookup ? await this.deps.lookup.complete(answered, document.uri) : answered;
    if (!papers) return (this.last = { done: false, message: 'cancelled' });
    const paperByN = new Map(citedNs.map((n, i) => [n, papers[i]!]));

    const edit = new vscode.WorkspaceEdit();
    const keyOfN = new Map<number, string>();
    let bibliography: vscode.Uri | undefined;
    if (flavour !== 'plain' && papers.length) {
      try {
        const target = await this.deps.bibliographies.target(document);
        if (!target) return (this.last = { done: false, message: 'cancelled' });
        const bib = await this.deps.bibliographies.load(target);
        const keys = await this.deps.bibliographies.addEntries(edit, bib, papers, document);
        citedNs.forEach((n, i) => {
          const key = keys[i];
          if (key) keyOfN.set(n, key);
        });
        bibliography = bib.uri;
      } catch (err) {
        // Refused before anything was written (not a .bib, an unclosed entry, an encoding): the writer is told why.
        if (err instanceof CitationError) return this.fail(err.message, 'error');
        throw err;
      }
    } else {
      for (const n of citedNs) keyOfN.set(n, idOf(n));
    }
    const keys = new Map([...keyOfN].map(([n, k]) => [idOf(n), k]));

    let text: string;
    let converted;
    if (flavour !== 'plain') {
      converted = answerForDocument(response, citations, {
        flavour,
        keys,
        footnotes,
        documentText: document.getText(),
        latexCommand: settings.latexCommand,
        newline,
      });
      text = converted.text;
    } else {
      const paperOfN = (n: number): CitePaper =>
        paperByN.get(n) ?? citePaperOfReference(refByN.get(n)!, this.deps.recent);
      converted = convertAnswer(response, citations, {
        flavour: 'plain',
        keys,
        plain: (cs) => `(${cs.map((c) => inTextCitation(paperOfN(c.n)).slice(1, -1)).join('; ')})`,
      });
      text = converted.text.replace(/\s+$/u, '');
      if (citedNs.length) {
        const list = citedNs.map((n) => formatReference(paperOfN(n), 'text')).sort((a, b) => a.localeCompare(b));
        text += `${newline}${newline}${vscode.l10n.t('References')}${newline}${newline}${list.join(newline)}`;
      }
      text = text.replace(/\r?\n/gu, newline);
    }
    const cited = converted.keys.filter((k) => [...keyOfN.values()].includes(k));

    // Where: the selection (replaced, like a paste); a paragraph of its own when the line has text around it.
    const selection = editor.selection;
    const line = document.lineAt(selection.start.line).text;
    const before = line.slice(0, selection.start.character);
    const after = document.lineAt(selection.end.line).text.slice(selection.end.character);
    const body = text.replace(/\s+$/u, '');
    // A line of text right above an empty cursor line (a heading, a paragraph) gets a blank line between.
    const above =
      !before.trim() && selection.start.line > 0 ? document.lineAt(selection.start.line - 1).text.trim() : '';
    const lead = before.trim() ? newline + newline : above ? newline : '';
    const inserted = `${lead}${body}${newline}${after.trim() ? newline : ''}`;
    edit.replace(document.uri, selection, inserted);
    // As Insert Citation does: the entries are appended to the .bib's bytes (a LaTeX or Pandoc run reads the file),
    // then the answer is applied; the .bib is put back when VS Code refuses that.
    let applied: boolean;
    try {
      applied = await this.deps.bibliographies.apply(edit);
    } catch (err) {
      if (err instanceof CitationError) return this.fail(err.message, 'error');
      throw err;
    }
    if (!applied)
      return this.fail(
        vscode.l10n.t(
          'The answer could not be written into {0} (read-only or changed meanwhile); nothing was changed.',
          vscode.workspace.asRelativePath(document.uri),
        ),
        'error',
      );
    const where = bibliography ? vscode.workspace.asRelativePath(bibliography) : '';
    const done = citedNs.length
      ? bibliography
        ? vscode.l10n.t('Answer inserted with {0} cited papers; their entries are in {1}.', citedNs.length, where)
        : vscode.l10n.t('Answer inserted with {0} cited papers.', citedNs.length)
      : vscode.l10n.t('Answer inserted.');
    void statusMessage(done, 5000);
    const unresolved = [...new Set([...probe.unresolved, ...converted.unresolved])];
    if (unresolved.length) {
      const list = unresolved.map((m) => `[${m}]`).join(', ');
      this.deps.log.warn(`Insert Answer: markers without a matching citation left as written: ${list}`);
      void showWarning(
        vscode.l10n.t('Answer inserted; these markers have no matching citation and were left as written: {0}', list),
      );
    }
    return (this.last = {
      done: true,
      message: done,
      keys: flavour === 'plain' ? [] : cited,
      unresolved,
      bibliography,
      text: inserted,
      flavour,
    });
  }
}
