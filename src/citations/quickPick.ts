/**
 * The Quick Pick of Insert Citation, Insert Citations, Copy BibTeX and Copy Reference when no paper is given: the
 * recent results not in
 * the document's bibliography yet (each with the key it would get) and the bibliography's entries, grouped by file;
 * once two characters are typed, a "Search papers for …" item runs a search (the only paid call, only when picked)
 * and offers its results in a second pick. Titles, names and venues from the service or a .bib are shown on one line
 * without icon syntax. Apart from citationCommands.ts because it is a flow of its own that the commands only call.
 */
import * as vscode from 'vscode';
import type { Paper } from '../api/index';
import { entryDoi } from '../bib/bibEntry';
import { entryKeys, type BibEntry } from '../bib/bibFile';
import { normaliseDoi } from '../bib/bibtex';
import { baseKey, disambiguate } from '../bib/keys';
import { loadBibtexLibrary } from '../bib/library';
import { showInfo } from '../platform/notify';
import { clip, noIcons, oneLine } from '../shared/plainText';
import type { Bibliographies } from './bibliography';
import { citationSettings } from '../platform/settings';
import { displayLatex } from './display';
import { citePaperOf } from './recentPapers';
import type { CitePaper, RecentPapers } from './types';

export interface CitePickItem extends vscode.QuickPickItem {
  paper?: CitePaper;
  /** The "Search papers for …" item: the query. */
  search?: string;
}

export interface PaperPickerDeps {
  bibliographies: Bibliographies;
  recent: RecentPapers;
  /** Papers the results view shows now. */
  shownPapers: () => readonly Paper[];
  /** Runs a search (a paid call) and shows it in the results view. */
  search: (query: string) => Promise<unknown>;
}

/** One line of untrusted text for a Quick Pick: `oneLine`, then `noIcons` (a title or a .bib draws no `$(icon)`). */
const pickText = (s: string | null | undefined): string => noIcons(oneLine(s));

function rawAuthors(entry: BibEntry): string {
  const names = (entry.field('author') ?? '')
    .split(/\s+and\s+/u)
    .map((n) => displayLatex(n.includes(',') ? n.split(',')[0]! : (n.split(/\s+/u).pop() ?? n)));
  const list = names.filter(Boolean);
  if (!list.length) return '';
  return list.length > 2 ? `${list[0]} et al.` : list.join(' & ');
}

function paperAuthors(p: CitePaper): string {
  const list = (p.authors ?? []).map((a) => {
    const t = pickText(a);
    return t.includes(',') ? t.split(',')[0]! : (t.split(' ').pop() ?? t);
  });
  if (!list.length) return '';
  return list.length > 2 ? `${list[0]} et al.` : list.join(' & ');
}

export class PaperPicker {
  /** The Quick Pick on screen (tests drive it). */
  active: vscode.QuickPick<CitePickItem> | undefined;

  constructor(private readonly deps: PaperPickerDeps) {}

  /**
   * The Quick Pick: recent results (not already in the bibliography) and the document's bibliography entries, with
   * a "Search papers for …" item once something is typed. Undefined = cancelled.
   */
  async pickPapers(
    document: vscode.TextDocument | undefined,
    options: { many: boolean; title: string },
  ): Promise<CitePaper[] | undefined> {
    const entries = document ? await this.deps.bibliographies.entries(document) : [];
    const inBib = new Map<string, string>();
    for (const e of entries) {
      const doi = entryDoi(e.entry);
      if (doi) inBib.set(doi, e.entry.key);
    }
    const recent = this.deps.recent.list().filter((p) => !inBib.has(normaliseDoi(p.doi)?.toLowerCase() ?? ''));
    const items: CitePickItem[] = [];
    if (recent.length) items.push({ label: vscode.l10n.t('Recent results'), kind: vscode.QuickPickItemKind.Separator });
    // The key each recent paper would get (disambiguated against the bibliography only on a clash).
    const scheme = citationSettings(document?.uri).keyScheme;
    const taken = new Set([...new Set(entries.map((e) => e.bib.file))].flatMap(entryKeys).map((k) => k.toLowerCase()));
    const keyFor = (p: CitePaper): string => {
      const base = baseKey(p, scheme);
      return taken.has(base.toLowerCase()) ? disambiguate(base, taken) : base;
    };
    for (const p of recent) {
      items.push({
        label: clip(pickText(p.title) || vscode.l10n.t('(untitled paper)'), 140),
        description: [
          paperAuthors(p),
          p.publish_year ? String(p.publish_year) : '',
          document ? vscode.l10n.t('new: {0}', keyFor(p)) : '',
        ]
          .filter(Boolean)
          .join(' · '),
        detail: pickText(p.journal_name) || undefined,
        paper: p,
      });
    }
    const byBib = new Map<string, typeof entries>();
    for (const e of entries) {
      const k = e.bib.uri.toString();
      byBib.set(k, [...(byBib.get(k) ?? []), e]);
    }
    for (const list of byBib.values()) {
      items.push({
        label: vscode.workspace.asRelativePath(list[0]!.bib.uri),
        kind: vscode.QuickPickItemKind.Separator,
      });
      for (const e of list) {
        const raw = e.entry.raw;
        items.push({
          label: clip(noIcons(displayLatex(raw['title'] ?? '')) || e.entry.key, 140),
          description: noIcons(
            [rawAuthors(e.entry), (raw['year'] ?? raw['date'] ?? '').slice(0, 4), e.entry.key]
              .filter(Boolean)
              .join(' · '),
          ),
          detail: noIcons(displayLatex(raw['journal'] ?? raw['journaltitle'] ?? raw['booktitle'] ?? '')) || undefined,
          paper: { key: e.entry.key, title: displayLatex(raw['title'] ?? '') || null, doi: entryDoi(e.entry) ?? null },
        });
      }
    }
    const choice = await this.quickPick(items, options);
    if (!choice) return undefined;
    if ('search' in choice) return this.searchAndPick(choice.search, options);
    // A bibliography entry: cite by key (its full metadata is read from the file only for Copy Reference).
    return Promise.all(choice.papers.map((p) => this.fullPaper(p, entries)));
  }

  private fullPaper(p: CitePaper, entries: Awaited<ReturnType<Bibliographies['entries']>>): Promise<CitePaper> {
    if (!p.key || p.authors) return Promise.resolve(p);
    const e = entries.find((x) => x.entry.key === p.key);
    return loadBibtexLibrary().then(() => (e ? e.paper : p));
  }

  private async searchAndPick(
    query: string,
    options: { many: boolean; title: string },
  ): Promise<CitePaper[] | undefined> {
    await this.deps.search(query);
    const shown = this.deps.shownPapers().map(citePaperOf);
    if (!shown.length) {
      void showInfo(vscode.l10n.t('No papers found for “{0}”; nothing was cited.', clip(query, 60)));
      return undefined;
    }
    const items: CitePickItem[] = shown.map((p) => ({
      label: clip(pickText(p.title) || vscode.l10n.t('(untitled paper)'), 140),
      description: [paperAuthors(p), p.publish_year ? String(p.publish_year) : ''].filter(Boolean).join(' · '),
      detail: pickText(p.journal_name) || undefined,
      paper: p,
    }));
    const choice = await this.quickPick(items, {
      ...options,
      noSearch: true,
      title: vscode.l10n.t('{0}: results for “{1}”', options.title, clip(query, 40)),
    });
    return choice && 'papers' in choice ? choice.papers : undefined;
  }

  private quickPick(
    items: CitePickItem[],
    options: { many: boolean; title: string; noSearch?: boolean },
  ): Promise<{ papers: CitePaper[] } | { search: string } | undefined> {
    const qp = vscode.window.createQuickPick<CitePickItem>();
    qp.title = options.title;
    qp.canSelectMany = options.many;
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    const placeholder = (): string =>
      qp.canSelectMany
        ? vscode.l10n.t('Tick the papers, then press Enter to cite them all')
        : options.noSearch
          ? vscode.l10n.t('Pick the paper to cite')
          : vscode.l10n.t('Type to filter recent results and the bibliography, or to search papers');
    qp.placeholder = placeholder();
    qp.items = items;
    // One click (or Enter) cites that paper, as citation pickers do; the title button turns ticking on for several.
    const several: vscode.QuickInputButton = {
      iconPath: new vscode.ThemeIcon('checklist'),
      tooltip: vscode.l10n.t('Select Several Papers'),
    };
    if (!options.many) qp.buttons = [several];
    qp.onDidTriggerButton((b) => {
      if (b !== several) return;
      qp.canSelectMany = true;
      qp.buttons = [];
      qp.placeholder = placeholder();
      // The rows are drawn again so that each gets its tick box (a shown list keeps the rows it drew).
      const active = qp.activeItems;
      qp.items = [...qp.items];
      qp.activeItems = active;
    });
    const searchItem = (q: string): CitePickItem => ({
      label: `$(search) ${vscode.l10n.t('Search papers for “{0}”', noIcons(clip(q, 60)))}`,
      description: vscode.l10n.t('runs a search (one call)'),
      alwaysShow: true,
      search: q,
    });
    let shownSearch: CitePickItem | undefined;
    if (!options.noSearch)
      qp.onDidChangeValue((v) => {
        const q = v.trim();
        // The same event can come twice (set by the extension, echoed by the UI): keep the items, and the checks.
        if ((shownSearch?.search ?? '') === (q.length >= 2 ? q : '')) return;
        const keep = qp.selectedItems;
        shownSearch = q.length >= 2 ? searchItem(q) : undefined;
        qp.items = shownSearch ? [...items, shownSearch] : items;
        if (qp.canSelectMany) qp.selectedItems = keep.filter((k) => qp.items.includes(k));
      });
    return new Promise((resolve) => {
      let done = false;
      const finish = (v: { papers: CitePaper[] } | { search: string } | undefined): void => {
        if (done) return;
        done = true;
        resolve(v);
        qp.hide();
      };
      qp.onDidAccept(() => {
        const chosen = qp.selectedItems.length ? qp.selectedItems : qp.activeItems;
        const search = chosen.find((i) => i.search !== undefined);
        if (search?.search !== undefined) return finish({ search: search.search });
        if (!chosen.length && shownSearch?.search) return finish({ search: shownSearch.search });
        const papers = chosen.flatMap((i) => (i.paper ? [i.paper] : []));
        if (papers.length) finish({ papers });
      });
      qp.onDidHide(() => {
        finish(undefined);
        if (this.active === qp) this.active = undefined;
        qp.dispose();
      });
      this.active = qp;
      qp.show();
    });
  }
}
