/**
 * Completing an agent answer's citations before they become bibliography entries.
 *
 * The service's citation objects carry only `title`, `year`, `journal` and `url` (spec, "Citation"): no authors, no
 * DOI, volume or pages. A paper the writer saw in a search this session is completed from that result for free
 * (RecentPapers.byId). For the others, one search by title and year finds the paper (matched by its id, else by its
 * title and year) and gives the full metadata, but each search is a paid call, so the setting
 * `researchDesk.citations.lookUpMissingMetadata` decides: "ask" (default: a modal question naming the number of
 * calls, before anything is written), "always", or "never" (the entry gets what the answer gives, and the key starts
 * with "anon"). A failed lookup never loses the insert: the paper keeps what the answer gave and the reason is shown.
 */
import * as vscode from 'vscode';
import { showWarning } from '../platform/notify';
import type { SearchParams, SearchResponse } from '../api/index';
import { titleKey } from '../bib/bibEntry';
import { tellApart, type PaperFacts } from '../bib/paperIdentity';
import { lookUpMissingMetadata } from '../platform/settings';
import { describeError } from '../platform/errorPresenter';
import { citePaperOf } from './recentPapers';
import type { CitePaper, RecentPapers } from './types';

/** Results per lookup: the paper is near the top when searched by its own title; 10 is within every plan's cap. */
const LOOKUP_PAGE_SIZE = 10;

export interface PaperLookupDeps {
  /** One search through the search session (its cache, the monthly-calls ledger); `sent` false = from the cache. */
  search: (params: SearchParams) => Promise<{ response: SearchResponse; sent: boolean }>;
  recent: RecentPapers;
  baseUrl: () => string;
  log: (message: string) => void;
}

/** A paper from an answer that a search would complete: it has a title but no authors. */
export const needsLookup = (p: CitePaper): boolean => !p.authors?.length && !!titleKey(p.title ?? '');

export interface LookupOutcome {
  papers: CitePaper[];
  /** Searches sent (a search the session cache answered costs nothing and is not counted). */
  calls: number;
  /** Papers completed from a search. */
  completed: number;
}

export class PaperLookup {
  /** The question before spending calls; tests replace it. Resolves 'lookUp', 'skip' or undefined (cancel). */
  ask = async (count: number): Promise<'lookUp' | 'skip' | undefined> => {
    const lookUp =
      count === 1 ? vscode.l10n.t('Look Up (1 search call)') : vscode.l10n.t('Look Up ({0} search calls)', count);
    const skip = vscode.l10n.t("Use the Answer's Details");
    const choice = await vscode.window.showInformationMessage(
      count === 1
        ? vscode.l10n.t(
            'The answer gives only the title, year and journal of this paper. Look up its authors and DOI with a search?',
          )
        : vscode.l10n.t(
            'The answer gives only the title, year and journal of {0} cited papers. Look up their authors and DOIs with a search each?',
            count,
          ),
      {
        modal: true,
        detail: vscode.l10n.t(
          'Each search is one call of your monthly plan. The setting "Look Up Missing Metadata" can answer this for you.',
        ),
      },
      lookUp,
      skip,
    );
    return choice === lookUp ? 'lookUp' : choice === skip ? 'skip' : undefined;
  };
  /** The last outcome (tests). */
  last: LookupOutcome | undefined;

  constructor(private readonly deps: PaperLookupDeps) {}

  /**
   * `papers` with what a search knows filled in, where allowed; undefined when the writer cancelled. Papers known
   * from this session's searches are completed without a call.
   */
  async complete(papers: readonly CitePaper[], resource?: vscode.Uri): Promise<CitePaper[] | undefined> {
    let out = papers.map((p) => (p.id && needsLookup(p) ? (this.deps.recent.byId(p.id) ?? p) : p));
    const missing = out.map((p, i) => (needsLookup(p) ? i : -1)).filter((i) => i >= 0);
    this.last = { papers: out, calls: 0, completed: 0 };
    if (!missing.length) return out;
    const policy = lookUpMissingMetadata(resource);
    if (policy === 'never') return out;
    if (policy === 'ask') {
      const answer = await this.ask(missing.length);
      if (answer === undefined) return undefined;
      if (answer === 'skip') return out;
    }
    out = [...out];
    let calls = 0;
    let completed = 0;
    const found = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Looking up the cited papers'),
        cancellable: true,
      },
      async (progress, token) => {
        const result = new Map<number, CitePaper>();
        for (const [k, i] of missing.entries()) {
          if (token.isCancellationRequested) break;
          const paper = out[i]!;
          progress.report({ message: `${k + 1}/${missing.length}`, increment: 100 / missing.length });
          try {
            const { hit, sent } = await this.find(paper);
            if (sent) calls++;
            if (hit) result.set(i, hit);
          } catch (err) {
            calls++;
            const why =
              describeError(err, { baseUrl: this.deps.baseUrl() })?.message ??
              (err instanceof Error ? err.message : String(err));
            this.deps.log(`Looking up "${paper.title ?? ''}" failed: ${why}`);
            void showWarning(
              vscode.l10n.t("Looking up the cited papers stopped: {0} The rest keep the answer's details.", why),
            );
            break;
          }
        }
        return result;
      },
    );
    for (const [i, hit] of found) {
      out[i] = hit;
      completed++;
    }
    if (found.size) this.deps.recent.remember([...found.values()]);
    this.last = { papers: out, calls, completed };
    return out;
  }

  /** One search by title (and year): the result with the paper's id, else the one with its title and year. */
  private async find(paper: CitePaper): Promise<{ hit: CitePaper | undefined; sent: boolean }> {
    const title = paper.title ?? '';
    const year = typeof paper.publish_year === 'number' ? paper.publish_year : undefined;
    const params: SearchParams = { query: title.slice(0, 500), page_size: LOOKUP_PAGE_SIZE };
    if (year) Object.assign(params, { year_min: year, year_max: year });
    const { response, sent } = await this.deps.search(params);
    const candidates = response.results.map(citePaperOf);
    const want = titleKey(title);
    // A result with the same title is this paper only when no field tells them apart (another journal, id or URL).
    const facts = (p: CitePaper): PaperFacts => ({
      id: p.id,
      doi: p.doi,
      url: p.url,
      journal: p.journal_name,
      year: p.publish_year,
    });
    const hit =
      (paper.id ? candidates.find((c) => c.id === paper.id) : undefined) ??
      candidates.find(
        (c) =>
          titleKey(c.title ?? '') === want && (!year || c.publish_year === year) && !tellApart(facts(paper), facts(c)),
      );
    if (!hit) {
      this.deps.log(`Looking up "${title}": no search result has its id or title.`);
      return { hit: undefined, sent };
    }
    // The answer's id stays (recent papers and the answer view find it by that id).
    return { hit: { ...hit, ...(paper.id ? { id: paper.id } : {}) }, sent };
  }
}
