import * as vscode from 'vscode';
import type { Paper } from '../api/index';
import type { Logger } from '../platform/logger';
import { doiUrl, paperDescription, paperId } from './query';
import { Disposable } from '../shared/disposable';
import { escapeMarkdown, markdownLink, markdownWithSafeLinks } from '../shared/markdown';
import { oneLine, plainText } from '../shared/plainText';
import { checkHttpsUrl, type LinkRefusal } from '../shared/url';
import { showInfo, showWarning, statusMessage } from '../platform/notify';
import type { ResultNode, ResultsTreeProvider } from './resultsTree';

/** Scheme of the read-only abstract documents. */
export const ABSTRACT_SCHEME = 'research-desk-paper';

export interface PaperActionResult {
  done: boolean;
  /** What was opened or copied (a URL, text), or the document's text for Show Abstract. */
  value?: string;
  message?: string;
}

/**
 * Actions on papers of the results view: Open Paper, Open DOI, Copy DOI, Copy Title, Show
 * Abstract (a read-only Markdown document, service text escaped) and Find Similar. They act
 * on the clicked paper, or on every selected one (the view allows several).
 * Links from the service are opened only when the one link rule (src/shared/url.ts) allows them.
 */
export class PaperCommands extends Disposable {
  private readonly abstracts = new Map<string, string>();
  private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());

  constructor(
    private readonly view: ResultsTreeProvider,
    private readonly log: Logger,
    private readonly findSimilarBy: (title: string) => Promise<unknown>,
  ) {
    super();
    this.register(
      vscode.workspace.registerTextDocumentContentProvider(ABSTRACT_SCHEME, {
        onDidChange: this.changed.event,
        provideTextDocumentContent: (uri) =>
          this.abstracts.get(uri.path) ??
          vscode.l10n.t('This abstract is no longer available; show it again from the results.'),
      }),
    );
  }

  /** The papers a command applies to: the selection when the clicked paper is part of it, else the clicked one. */
  private papers(args: readonly unknown[]): Paper[] {
    const clicked = args[0] as ResultNode | undefined;
    const selected = Array.isArray(args[1]) ? (args[1] as ResultNode[]) : undefined;
    const asPaper = (n: ResultNode | undefined): Paper | undefined =>
      n && (n.kind === 'paper' || n.kind === 'excerpt') ? n.paper : undefined;
    const fromSelection = (selected ?? []).map(asPaper).filter((p): p is Paper => !!p);
    const one = asPaper(clicked);
    if (one && fromSelection.includes(one)) return fromSelection;
    if (one) return [one];
    return this.view.selectedPapers();
  }

  private nothing(): PaperActionResult {
    const message = vscode.l10n.t('Select a paper in the Research view first.');
    void showInfo(message);
    return { done: false, message };
  }

  async openPaper(...args: unknown[]): Promise<PaperActionResult> {
    const papers = this.papers(args).slice(0, 10);
    if (!papers.length) return this.nothing();
    // Service text: surrounding whitespace is dropped, the rest is judged as it is.
    const checks = papers.map((p) => checkHttpsUrl(p.url?.trim()));
    const opened: string[] = [];
    const refused: LinkRefusal[] = [];
    for (const check of checks) {
      if (!check.ok) refused.push(check.refusal);
      else {
        opened.push(check.url);
        await vscode.env.openExternal(vscode.Uri.parse(check.url, true));
      }
    }
    if (refused.length) {
      const message =
        papers.length === 1
          ? refusedLinkSentence(refused[0]!)
          : vscode.l10n.t('{0} of the {1} papers have no safe (https) link to open.', refused.length, papers.length);
      // The reasons only: a refused link may carry a password.
      this.log.warn(`Open Paper: ${refused.length} link(s) refused (${[...new Set(refused)].join(', ')}).`);
      void showWarning(message);
      return { done: opened.length > 0, value: opened.join('\n'), message };
    }
    return { done: true, value: opened.join('\n') };
  }

  async openDoi(...args: unknown[]): Promise<PaperActionResult> {
    const papers = this.papers(args).slice(0, 10);
    if (!papers.length) return this.nothing();
    const urls = papers.map((p) => doiUrl(p.doi)).filter((u): u is string => !!u);
    if (!urls.length) {
      const message = vscode.l10n.t('This paper has no DOI.');
      void showInfo(message);
      return { done: false, message };
    }
    for (const url of urls) await vscode.env.openExternal(vscode.Uri.parse(url, true));
    return { done: true, value: urls.join('\n') };
  }

  async copyDoi(...args: unknown[]): Promise<PaperActionResult> {
    const papers = this.papers(args);
    if (!papers.length) return this.nothing();
    const dois = papers.map((p) => (p.doi ?? '').trim()).filter(Boolean);
    if (!dois.length) {
      const message = vscode.l10n.t('This paper has no DOI.');
      void showInfo(message);
      return { done: false, message };
    }
    const text = dois.join('\n');
    await vscode.env.clipboard.writeText(text);
    void statusMessage(vscode.l10n.t('Copied {0} DOI(s).', dois.length), 3000);
    return { done: true, value: text };
  }

  async copyTitle(...args: unknown[]): Promise<PaperActionResult> {
    const papers = this.papers(args);
    if (!papers.length) return this.nothing();
    const text = papers.map((p) => oneLine(p.title)).join('\n');
    await vscode.env.clipboard.writeText(text);
    void statusMessage(vscode.l10n.t('Copied {0} title(s).', papers.length), 3000);
    return { done: true, value: text };
  }

  /**
   * The paper as a rendered Markdown preview whose tab is named after the paper (the document's file name is the
   * title): the escaping that keeps service text inert is read by the renderer, not by the writer. Without the
   * built-in Markdown preview, the document itself is shown.
   */
  async showAbstract(...args: unknown[]): Promise<PaperActionResult> {
    const paper = this.papers(args)[0];
    if (!paper) return this.nothing();
    const id = paperId(paper).replace(/[^A-Za-z0-9._-]/g, '_') || 'paper';
    const path = `/${id}/${fileTitle(paper.title)}.md`;
    const text = abstractMarkdown(paper);
    this.abstracts.set(path, text);
    const uri = vscode.Uri.from({ scheme: ABSTRACT_SCHEME, path });
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== 'markdown') await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    const previewed = await vscode.commands.executeCommand('markdown.showPreview', uri).then(
      () => true,
      () => false,
    );
    if (!previewed) await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: false });
    return { done: true, value: doc.getText() };
  }

  async findSimilar(...args: unknown[]): Promise<unknown> {
    const paper = this.papers(args)[0];
    if (!paper) return this.nothing();
    const title = oneLine(paper.title);
    if (!title) return { done: false, message: vscode.l10n.t('This paper has no title to search by.') };
    return this.findSimilarBy(title);
  }
}

/**
 * A paper's title as a file name a tab shows: plain, without characters a path or a file system would read, cut at a
 * word boundary to 60 characters.
 */
export function fileTitle(title: string | null | undefined): string {
  // plainText drops control and invisible characters; what a path or a file system reads becomes a space.
  const plain = plainText(title, 400).replace(/[\\/:*?"<>|#%]/g, ' ');
  const words = plain.replace(/\s+/g, ' ').trim();
  if (!words) return vscode.l10n.t('Untitled paper');
  if (words.length <= 60) return words.replace(/[. ]+$/, '') || vscode.l10n.t('Untitled paper');
  const cut = words.slice(0, 60);
  const space = cut.lastIndexOf(' ');
  return `${(space > 30 ? cut.slice(0, space) : cut).replace(/[.,;: ]+$/, '')}…`;
}

/**
 * The abstract document: title, authors, year, journal, DOI, takeaway, abstract. It is shown rendered (a Markdown
 * preview links bare URLs by itself), so every service string goes through markdownWithSafeLinks: escaped, and a URL
 * in it a link only when the one link rule allows it (no credentials, https only), any other made inert.
 */
export function abstractMarkdown(p: Paper): string {
  const text = (v: string | null | undefined): string => markdownWithSafeLinks(oneLine(v));
  const lines: string[] = [];
  lines.push(`# ${text(p.title) || escapeMarkdown(vscode.l10n.t('(untitled paper)'))}`, '');
  const authors = (p.authors ?? []).map((a) => oneLine(a)).filter(Boolean);
  if (authors.length) lines.push(`*${text(authors.join(', '))}*`, '');
  const where = paperDescription({ authors: null, publish_year: p.publish_year, journal_name: p.journal_name });
  if (where) lines.push(text(where), '');
  const doi = doiUrl(p.doi);
  if (doi) lines.push(`DOI: ${markdownLink(oneLine(p.doi), doi)}`, '');
  if (p.takeaway?.trim()) lines.push(`## ${vscode.l10n.t('Takeaway')}`, '', text(p.takeaway), '');
  lines.push(`## ${vscode.l10n.t('Abstract')}`, '');
  lines.push(p.abstract?.trim() ? text(p.abstract) : vscode.l10n.t('The service sent no abstract for this paper.'), '');
  return lines.join('\n');
}

/** Why Open Paper did not open a paper's link, in one sentence. */
function refusedLinkSentence(refusal: LinkRefusal): string {
  switch (refusal) {
    case 'credentials':
      return vscode.l10n.t(
        "This paper's link was not opened: it carries a user name or password before the site (…@site), which can disguise the site it leads to.",
      );
    case 'characters':
      return vscode.l10n.t(
        "This paper's link was not opened: it holds spaces, invisible or control characters, or a backslash, which can disguise where it leads.",
      );
    case 'host':
      return vscode.l10n.t(
        "This paper's link was not opened: its site is not a full domain name (such as example.org).",
      );
    case 'tooLong':
      return vscode.l10n.t("This paper's link was not opened: it is longer than 2,048 characters.");
    case 'missing':
    case 'notHttps':
    case 'malformed':
      return vscode.l10n.t('This paper has no safe (https) link to open.');
  }
}
