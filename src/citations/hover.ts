/**
 * Hover and Ctrl+click on cite keys, in the citation bundle (dist/cite.js); the entry bundle's adapter calls in
 * only when its cheap check saw a citation.
 *
 * Hover (keyAt: any key of `\cite{a,b}`, `[@a; @b]`, `@a`, `#cite(<a>)`, citations over several lines): title,
 * authors, year, journal from the bibliography entry, with the takeaway and the journal's SJR quartile of the same
 * paper among the recent search results / answer citations (matched by DOI, else title and year). The text comes
 * from a .bib file and from the service, so it is untrusted: the MarkdownString is not trusted, has no HTML and no
 * theme icons, every piece of text is escaped, and a URL in it is a link only when the one link rule allows it
 * (markdownWithSafeLinks). A key missing from the document's bibliographies says so (no hover at all when the
 * document has no bibliography: a bare `@word` there is more likely a mention).
 * Links: every cited key that resolves to a paper links to its URL (the entry's `url`, else the recent result's
 * page), else to https://doi.org/<doi>; https only (safeHttpsUrl), never a command: or file: target.
 * Both read an entry's metadata through bibEntry.entryFields, which decodes only the fields the editor shows, each
 * bounded: an entry's 200 KB abstract cost the BibTeX library seconds on every hover.
 */
import * as vscode from 'vscode';
import { doiKey, titleKey } from '../bib/bibEntry';
import type { BibFile } from '../bib/bibFile';
import { yearOf } from '../bib/bibtex';
import { loadBibtexLibrary } from '../bib/library';
import { tellApart, type PaperFacts } from '../bib/paperIdentity';
import { findCitations, flavourOf, keyAt } from '../bib/syntax';
import { safeHttpsUrl } from '../shared/url';
import { markdownLink, markdownWithSafeLinks } from '../shared/markdown';
import { clip, oneLine } from '../shared/plainText';
import { SLICE_MS, yieldToEventLoop } from '../shared/slices';
import { doiUrl } from '../search/query';
import { byline } from './entryText';
import type { CiteAssistOptions } from './completion';
import type { BibliographyEntry, CitePaper } from './types';

/** What is known about a cited key. */
export interface KeyInfo {
  key: string;
  entry?: BibliographyEntry;
  /** The entry's metadata. */
  paper?: CitePaper;
  /** The same paper among the recent papers (takeaway, quartile, page). */
  recent?: CitePaper;
}

/** Recent papers by DOI and by title+year. */
class RecentIndex {
  private readonly byDoi = new Map<string, CitePaper>();
  private readonly byTitle = new Map<string, CitePaper[]>();

  constructor(papers: readonly CitePaper[]) {
    for (const p of papers) {
      const doi = doiKey(p.doi);
      if (doi && !this.byDoi.has(doi)) this.byDoi.set(doi, p);
      const t = titleKey(p.title ?? '');
      const y = yearOf(p);
      if (!t || y === undefined) continue;
      const list = this.byTitle.get(`${y}:${t}`);
      if (list) list.push(p);
      else this.byTitle.set(`${y}:${t}`, [p]);
    }
  }

  find(paper: CitePaper): CitePaper | undefined {
    const doi = doiKey(paper.doi);
    const hit = doi ? this.byDoi.get(doi) : undefined;
    if (hit) return hit;
    const t = titleKey(paper.title ?? '');
    const y = yearOf(paper);
    const same = t && y !== undefined ? this.byTitle.get(`${y}:${t}`) : undefined;
    // Title and year match only when no other field tells the papers apart (DOI, journal, URL, id).
    return same?.find((s) => (!doi || !doiKey(s.doi)) && !tellApart(facts(paper), facts(s)));
  }
}

const facts = (p: CitePaper): PaperFacts => ({ id: p.id, url: p.url, journal: p.journal_name });

/** The link for a paper: its https URL, else its DOI at doi.org. */
export function paperLink(entry: CitePaper | undefined, recent: CitePaper | undefined): string | undefined {
  return (
    safeHttpsUrl(entry?.url ?? undefined) ??
    safeHttpsUrl(recent?.url ?? undefined) ??
    safeHttpsUrl(doiUrl(entry?.doi ?? recent?.doi))
  );
}

const QUARTILES = new Set([1, 2, 3, 4]);

/** The hover's Markdown for a key (exported for the tests' escaping checks). */
export function hoverMarkdown(info: KeyInfo, bibNames: readonly string[]): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, false);
  md.isTrusted = false;
  md.supportHtml = false;
  // Escaped, and a URL in the text a link only when the one link rule allows it (VS Code's Markdown would make any
  // https://… a link by itself).
  const esc = (s: string | number | null | undefined): string => markdownWithSafeLinks(String(s ?? ''));
  if (!info.entry) {
    md.appendMarkdown(esc(vscode.l10n.t('"{0}" is not in {1}.', info.key, bibNames.join(', '))));
    return md;
  }
  const p = info.paper ?? info.entry.paper;
  const r = info.recent;
  const lines: string[] = [];
  const title = p.title ?? r?.title;
  if (title) lines.push(`**${esc(title)}**`);
  const authors = p.authors?.length ? p.authors : (r?.authors ?? []);
  const journal = p.journal_name ?? r?.journal_name;
  const year = yearOf(p) ?? (r ? yearOf(r) : undefined);
  const by = byline(authors, undefined, undefined);
  if (by) lines.push(esc(by));
  const venue = [journal ? `*${esc(journal)}*` : '', year ? esc(year) : ''];
  const q = r?.sjr_best_quartile;
  if (typeof q === 'number' && QUARTILES.has(q)) venue.push(esc(vscode.l10n.t('Q{0} journal (SJR)', q)));
  const venueLine = venue.filter(Boolean).join(' · ');
  if (venueLine) lines.push(venueLine);
  if (r?.takeaway) lines.push(`${esc(vscode.l10n.t('Takeaway:'))} ${esc(r.takeaway)}`);
  const footer = [esc(info.entry.entry.key), esc(vscode.workspace.asRelativePath(info.entry.bib.uri))];
  const link = paperLink(p, r);
  if (link) footer.push(markdownLink(vscode.l10n.t('Open paper'), link));
  lines.push(footer.join(' · '));
  md.appendMarkdown(lines.join('\n\n'));
  return md;
}

export class CiteHover {
  constructor(private readonly options: CiteAssistOptions) {}

  /**
   * The last lookup tables, reused while the .bib parses and the recent list are the same objects. `byKey` gives the
   * index in `entries` of the first entry with each key (lower case); a parse that only adds entries after these
   * (an append) extends the table rather than building it again.
   */
  private cache:
    | {
        files: readonly BibFile[];
        entries: readonly BibliographyEntry[];
        byKey: Map<string, number>;
        list?: readonly CitePaper[];
        recents?: RecentIndex;
      }
    | undefined;

  private async lookup(document: vscode.TextDocument): Promise<{
    entryOf: (key: string) => BibliographyEntry | undefined;
    recents: RecentIndex;
    bibNames: string[];
  }> {
    await loadBibtexLibrary();
    const entries = await this.options.bibliographies.entries(document);
    const files: BibFile[] = [];
    for (const e of entries)
      if (files[files.length - 1] !== e.bib.file && !files.includes(e.bib.file)) files.push(e.bib.file);
    let cache = this.cache;
    if (!cache || cache.files.length !== files.length || cache.files.some((f, i) => f !== files[i])) {
      const old = cache?.entries ?? [];
      let same = 0;
      while (same < old.length && same < entries.length && entries[same]!.entry === old[same]!.entry) same++;
      // After an append the old entries come first, unchanged: only the new ones are added (a table of 10,000 keys
      // took 12 ms to build, in the task in which VS Code asked for the document's links).
      const byKey = cache && same === old.length ? cache.byKey : new Map<string, number>();
      for (let i = byKey === cache?.byKey ? same : 0; i < entries.length; i++) {
        const k = entries[i]!.entry.key.toLowerCase();
        if (!byKey.has(k)) byKey.set(k, i);
      }
      cache = this.cache = { files, entries, byKey };
      // What asked goes on in a task of its own.
      await yieldToEventLoop();
    }
    const list = this.options.recentPapers.list();
    if (cache.list !== list || !cache.recents) {
      cache.list = list;
      cache.recents = new RecentIndex(list);
    }
    const bibNames = (await this.options.bibliographies.findRecent(document)).map((b) =>
      vscode.workspace.asRelativePath(b.uri),
    );
    const { byKey, entries: current } = cache;
    const entryOf = (key: string): BibliographyEntry | undefined => {
      const i = byKey.get(key.toLowerCase());
      return i === undefined ? undefined : current[i];
    };
    return { entryOf, recents: cache.recents, bibNames };
  }

  async provideHover(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.Hover | undefined> {
    const flavour = flavourOf(document.languageId, document.fileName);
    if (flavour === 'plain') return undefined;
    const text = document.getText();
    const span = keyAt(text, document.offsetAt(position), flavour);
    if (!span) return undefined;
    const { entryOf, recents, bibNames } = await this.lookup(document);
    if (token.isCancellationRequested) return undefined;
    const entry = entryOf(span.key);
    // No bibliography at all: a bare `@word` is more likely a mention than a citation; say nothing.
    if (!entry && !bibNames.length) return undefined;
    const paper = entry?.paper;
    const info: KeyInfo = { key: span.key, entry, paper, recent: paper ? recents.find(paper) : undefined };
    return new vscode.Hover(
      hoverMarkdown(info, bibNames),
      new vscode.Range(document.positionAt(span.start), document.positionAt(span.end)),
    );
  }

  async provideDocumentLinks(
    document: vscode.TextDocument,
    token: vscode.CancellationToken,
  ): Promise<vscode.DocumentLink[]> {
    const flavour = flavourOf(document.languageId, document.fileName);
    if (flavour === 'plain') return [];
    const citations = findCitations(document.getText(), flavour);
    if (!citations.length) return [];
    const { entryOf, recents } = await this.lookup(document);
    const links: vscode.DocumentLink[] = [];
    const targets = new Map<string, { uri: vscode.Uri; title: string } | undefined>();
    // Each cited entry is decoded by the library (milliseconds each): a document citing hundreds yields between slices.
    let until = performance.now() + SLICE_MS;
    for (const c of citations) {
      for (const k of c.keys) {
        if (performance.now() > until) {
          await yieldToEventLoop();
          until = performance.now() + SLICE_MS;
        }
        if (token.isCancellationRequested) return [];
        const lk = k.key.toLowerCase();
        if (!targets.has(lk)) {
          const entry = entryOf(lk);
          let target: { uri: vscode.Uri; title: string } | undefined;
          if (entry) {
            const paper = entry.paper;
            const url = paperLink(paper, recents.find(paper));
            if (url) target = { uri: vscode.Uri.parse(url, true), title: paper.title ?? k.key };
          }
          targets.set(lk, target);
        }
        const t = targets.get(lk);
        if (!t) continue;
        const link = new vscode.DocumentLink(
          new vscode.Range(document.positionAt(k.start), document.positionAt(k.end)),
          t.uri,
        );
        link.tooltip = vscode.l10n.t('Open {0}', clip(oneLine(t.title), 200));
        links.push(link);
      }
    }
    return links;
  }
}
