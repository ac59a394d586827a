/**
 * The papers the chat's tools returned this session, in full (abstract, excerpts, study facts), so a model can read
 * one's details or cite it by the id, cite key or DOI it was shown, for free and without a guess. Most recent first,
 * capped, in memory only. No vscode.
 */
import type { Paper } from '../api/index';
import { normaliseDoi } from '../bib/bibtex';
import { paperId } from '../search/query';

export const SEEN_PAPERS_CAP = 500;

interface Seen {
  paper: Paper;
  refs: string[];
}

/** A reference as it is looked up: DOIs without their resolver prefix or case, ids and keys as written. */
function refKey(ref: string): string {
  const doi = normaliseDoi(ref);
  return doi ? `doi:${doi}` : ref.trim();
}

export class SeenPapers {
  private readonly byRef = new Map<string, Seen>();
  private order: Seen[] = [];

  constructor(private readonly cap = SEEN_PAPERS_CAP) {}

  /** `papers` become the most recent, each found again by its id, its DOI and the cite key it was shown with. */
  remember(papers: readonly { paper: Paper; citeKey: string }[]): void {
    for (const { paper, citeKey } of [...papers].reverse()) {
      const refs = [paperId(paper), paper.doi ? refKey(paper.doi) : '', citeKey].filter((r) => r !== '');
      const old = refs.map((r) => this.byRef.get(r)).find((s) => s !== undefined);
      if (old) this.forget(old);
      const seen: Seen = { paper, refs };
      for (const r of refs) this.byRef.set(r, seen);
      this.order.unshift(seen);
    }
    while (this.order.length > this.cap) this.forget(this.order[this.order.length - 1]!);
  }

  /** The paper shown under `ref` (an id, a cite key or a DOI in any common form). */
  find(ref: string): Paper | undefined {
    return (this.byRef.get(refKey(ref)) ?? this.byRef.get(ref.trim()))?.paper;
  }

  get size(): number {
    return this.order.length;
  }

  private forget(seen: Seen): void {
    for (const r of seen.refs) if (this.byRef.get(r) === seen) this.byRef.delete(r);
    this.order = this.order.filter((s) => s !== seen);
  }
}
