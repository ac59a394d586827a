/**
 * Papers the writer has seen this session: every paper the results view showed and every citation of an answer
 * the answer view showed. Most recent first, capped, in memory only (a new window starts empty: what was seen in
 * another session is in the bibliography if it was cited). Feeds the Insert Citation Quick Pick and completion.
 */
import type { Paper } from '../api/index';
import { titleKey } from '../bib/bibEntry';
import { normaliseDoi } from '../bib/bibtex';
import { tellApart, type PaperFacts } from '../bib/paperIdentity';
import { paperId } from '../search/query';
import type { ResultsModel } from '../search/resultsModel';
import type { CitePaper, RecentPapers } from './types';

/** What followResults reads: the results the search view shows, and when they change. */
export interface ShownResults {
  readonly current: ResultsModel | undefined;
  onDidChangeTreeData(listener: () => unknown): { dispose(): void };
}

/** How many papers are kept. */
export const RECENT_PAPERS_CAP = 500;

/** A search result as a CitePaper: the citation fields plus the service id (the last segment of its URL). */
export function citePaperOf(p: Paper): CitePaper {
  const out: CitePaper = {
    title: p.title,
    authors: p.authors,
    journal_name: p.journal_name,
    publish_year: p.publish_year,
    volume: p.volume,
    pages: p.pages,
    doi: p.doi,
    url: p.url,
    publisher_name: p.publisher_name,
    study_type: p.study_type,
    takeaway: p.takeaway,
    sjr_best_quartile: p.sjr_best_quartile,
    publish_date: p.publish_date,
    is_preprint: p.is_preprint,
  };
  const id = paperId(p);
  if (id) out.id = id;
  return out;
}

/**
 * Only the known, own fields of a CitePaper given as a command argument, each with its type (the webview, another
 * extension, a keybinding). A results-tree node (`kind`) is not a paper.
 */
export function asCitePaper(v: unknown): CitePaper | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  if ('kind' in v) return undefined;
  const r: Record<string, unknown> = Object.fromEntries(Object.entries(v));
  const out: Record<string, unknown> = {};
  const strs = [
    'title',
    'journal_name',
    'volume',
    'pages',
    'doi',
    'url',
    'publisher_name',
    'study_type',
    'takeaway',
    'publish_date',
    'id',
    'key',
  ];
  for (const f of strs) if (typeof r[f] === 'string') out[f] = r[f];
  for (const f of ['publish_year', 'sjr_best_quartile'])
    if (typeof r[f] === 'number' && Number.isFinite(r[f])) out[f] = r[f];
  if (typeof r['is_preprint'] === 'boolean') out['is_preprint'] = r['is_preprint'];
  if (Array.isArray(r['authors'])) out['authors'] = r['authors'].filter((a): a is string => typeof a === 'string');
  if (!out['title'] && !out['doi'] && !out['key']) return undefined;
  return out;
}

interface Identity extends PaperFacts {
  id?: string;
  doi?: string;
  title?: string;
}

function identityOf(p: CitePaper): Identity | undefined {
  const doi = normaliseDoi(p.doi)?.toLowerCase();
  const title = titleKey(p.title ?? '') || undefined;
  if (!p.id && !doi && !title) return undefined;
  return {
    id: p.id || undefined,
    doi,
    title,
    year: typeof p.publish_year === 'number' ? p.publish_year : undefined,
    url: p.url,
    journal: p.journal_name,
  };
}

/**
 * Whether two papers are the same: the same id or DOI; or the same title when nothing tells them apart (ids, DOIs,
 * URLs, years or journals that differ mean two papers: answers and searches repeat titles).
 */
function samePaper(a: Identity, b: Identity): boolean {
  if (a.id && b.id && a.id === b.id) return true;
  if (a.doi && b.doi && a.doi === b.doi) return true;
  if (!a.title || a.title !== b.title) return false;
  return !tellApart(a, b);
}

/** Fields of `next` that carry a value override `prev`'s; absent or null ones keep what was known. */
function merge(prev: CitePaper, next: CitePaper): CitePaper {
  const out: Record<string, unknown> = { ...prev };
  for (const [k, v] of Object.entries(next)) if (v !== undefined && v !== null && v !== '') out[k] = v;
  return out;
}

interface Slot {
  paper: CitePaper;
  ident: Identity;
  /** Order in its list (lower = more recent): the first match wins, as in a linear scan. */
  pos: number;
}

/** Slots by identity part, so finding the same paper is a few map look-ups, not a scan of every paper. */
class SlotIndex {
  private readonly maps = {
    id: new Map<string, Slot[]>(),
    doi: new Map<string, Slot[]>(),
    title: new Map<string, Slot[]>(),
  };

  add(slot: Slot): void {
    for (const part of ['id', 'doi', 'title'] as const) {
      const v = slot.ident[part];
      if (!v) continue;
      const list = this.maps[part].get(v);
      if (list) list.push(slot);
      else this.maps[part].set(v, [slot]);
    }
  }

  /** The first slot (lowest pos) holding the same paper, skipping `gone`. */
  find(ident: Identity, gone?: ReadonlySet<Slot>): Slot | undefined {
    let best: Slot | undefined;
    for (const part of ['id', 'doi', 'title'] as const) {
      const v = ident[part];
      if (!v) continue;
      for (const slot of this.maps[part].get(v) ?? [])
        if ((!best || slot.pos < best.pos) && !gone?.has(slot) && samePaper(ident, slot.ident)) best = slot;
    }
    return best;
  }
}

export class RecentPapersList implements RecentPapers {
  private slots: Slot[] = [];
  private papers: CitePaper[] = [];

  constructor(private readonly cap = RECENT_PAPERS_CAP) {}

  /**
   * The papers `results` shows become recent papers, now and whenever the view changes. Load More adds only the
   * newly shown ones: the view changes on every step, and 1,000 results would otherwise be merged again 50 times.
   */
  followResults(results: ShownResults): { dispose(): void } {
    let seen = { generation: -1, count: 0 };
    const take = (): void => {
      const model = results.current;
      if (!model) return;
      const from = model.generation === seen.generation ? Math.min(seen.count, model.papers.length) : 0;
      if (model.papers.length > from) this.remember(model.papers.slice(from).map(citePaperOf));
      seen = { generation: model.generation, count: model.papers.length };
    };
    take();
    return results.onDidChangeTreeData(take);
  }

  /** A new array whenever the list changed (completion caches by identity). */
  list(): readonly CitePaper[] {
    return this.papers;
  }

  /** `papers` in their order go to the top; a paper already known (see samePaper) is merged and moved. */
  remember(papers: readonly CitePaper[]): void {
    if (!papers.length) return;
    const known = new SlotIndex();
    for (const slot of this.slots) known.add(slot);
    const fresh = new SlotIndex();
    const batch: Slot[] = [];
    const moved = new Set<Slot>();
    for (const p of papers) {
      const ident = identityOf(p);
      if (!ident) continue;
      const inBatch = fresh.find(ident);
      if (inBatch) {
        inBatch.paper = merge(inBatch.paper, p);
        inBatch.ident = identityOf(inBatch.paper) ?? inBatch.ident;
        fresh.add(inBatch);
        continue;
      }
      let merged = p;
      const old = known.find(ident, moved);
      if (old) {
        merged = merge(old.paper, p);
        moved.add(old);
      }
      const slot: Slot = { paper: merged, ident: identityOf(merged) ?? ident, pos: batch.length };
      batch.push(slot);
      fresh.add(slot);
    }
    if (!batch.length) return;
    this.slots = [...batch, ...this.slots.filter((s) => !moved.has(s))].slice(0, this.cap);
    this.slots.forEach((s, i) => (s.pos = i));
    this.papers = this.slots.map((s) => s.paper);
  }

  byId(id: string): CitePaper | undefined {
    return this.papers.find((p) => p.id === id);
  }

  clear(): void {
    this.slots = [];
    this.papers = [];
  }
}
