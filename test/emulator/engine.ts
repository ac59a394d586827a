// Retrieval over the generated corpus: tokenizer, prebuilt inverted index, BM25F-style ranking
// (k1 1.2, b 0.75; title weighted 3, abstract 1, full text 0.5), filters, and excerpt selection.
import { getCorpus, type Paper } from './corpus';
import * as vocab from './vocab';

// A module-local copy: under tsx every use of an imported binding is a getter call, once per token here.
const STOPWORDS = vocab.STOPWORDS;

export const K1 = 1.2;
export const B = 0.75;
const W_TITLE = 3;
const W_ABSTRACT = 1;
const W_FULLTEXT = 0.5;
export const MAX_RESULTS = 1000;

const SPLIT = /[^\p{L}\p{N}]+/u;

function stem(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is'))
    return w.slice(0, -1);
  return w;
}

function pushToken(out: string[], raw: string): void {
  if (raw.length < 2 && !(raw >= '0' && raw <= '9')) return;
  if (STOPWORDS.has(raw)) return;
  out.push(stem(raw));
}

/** Lower-case, split on anything that is not a letter or digit, drop stop words, light plural stemming. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(lower)) {
    for (const raw of lower.split(SPLIT)) if (raw) pushToken(out, raw);
    return out;
  }
  // ASCII fast path.
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 32;
    const word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (word) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      pushToken(out, lower.slice(start, i));
      start = -1;
    }
  }
  return out;
}

export interface Filters {
  year_min?: number;
  year_max?: number;
  month_min?: number;
  month_max?: number;
  study_types?: string[];
  human?: boolean;
  controlled?: boolean;
  sample_size_min?: number;
  sjr_min?: number;
  sjr_max?: number;
  citation_min?: number;
  duration_min?: number;
  duration_max?: number;
  exclude_preprints?: boolean;
  open_access?: boolean;
  publisher_name?: string[];
  domain?: string[];
  /** Already resolved to known ISO codes; empty/absent = not applied. */
  country?: string[];
  journal_name?: string;
  clinical_guideline?: boolean;
  medical_mode?: boolean;
}

/** The filter predicate (exported so tests can check returned sets against it). */
export function matchesFilters(p: Paper, f: Filters): boolean {
  if (f.year_min !== undefined) {
    if (p.year < f.year_min) return false;
    if (f.month_min !== undefined && p.year === f.year_min && (p.month === null || p.month < f.month_min)) return false;
  }
  if (f.year_max !== undefined) {
    if (p.year > f.year_max) return false;
    if (f.month_max !== undefined && p.year === f.year_max && (p.month === null || p.month > f.month_max)) return false;
  }
  if (f.study_types && f.study_types.length > 0 && (p.studyType === null || !f.study_types.includes(p.studyType)))
    return false;
  if (f.human === true && p.populationType !== 'human') return false;
  if (f.controlled === true && !p.controlled) return false;
  if (f.sample_size_min !== undefined && (p.sampleSize === null || p.sampleSize < f.sample_size_min)) return false;
  if (f.sjr_min !== undefined && (p.sjrQuartile === null || p.sjrQuartile < f.sjr_min)) return false;
  if (f.sjr_max !== undefined && (p.sjrQuartile === null || p.sjrQuartile > f.sjr_max)) return false;
  if (f.citation_min !== undefined && p.citationCount < f.citation_min) return false;
  if (f.duration_min !== undefined && (p.durationDays === null || p.durationDays < f.duration_min)) return false;
  if (f.duration_max !== undefined && (p.durationDays === null || p.durationDays > f.duration_max)) return false;
  if (f.exclude_preprints === true && p.isPreprint === true) return false;
  if (f.open_access === true && !p.openAccess) return false;
  if (f.publisher_name && f.publisher_name.length > 0) {
    const pub = p.publisher.toLowerCase();
    if (!f.publisher_name.some((n) => n.toLowerCase() === pub)) return false;
  }
  if (f.domain && f.domain.length > 0 && !p.domains.some((d) => f.domain!.includes(d))) return false;
  if (f.country && f.country.length > 0 && !(p.countries ?? []).some((c) => f.country!.includes(c))) return false;
  if (f.clinical_guideline === true && !p.clinicalGuideline) return false;
  if (f.medical_mode === true && !(p.topMedical || p.clinicalGuideline)) return false;
  return true;
}

export interface Hit {
  paper: Paper;
  score: number;
}

interface Passage {
  heading: string;
  text: string;
  terms: Set<string>;
}

export class SearchEngine {
  readonly papers: Paper[];
  readonly byId = new Map<string, Paper>();
  private readonly termIds = new Map<string, number>();
  /** CSR postings: documents of term t are postDocs[postStart[t] .. postStart[t + 1]). */
  private postStart: Int32Array = new Int32Array(1);
  private postDocs: Int32Array = new Int32Array(0);
  private postTf: Float32Array = new Float32Array(0);
  private readonly docLen: Float32Array;
  private readonly avgLen: number;
  private readonly scratch: Float64Array;
  private readonly passages = new Map<number, Passage[]>();
  readonly buildMs: number;

  constructor(size = 5000, seed?: number) {
    const t0 = performance.now();
    this.papers = getCorpus(size, seed);
    const n = this.papers.length;
    this.docLen = new Float32Array(n);
    this.scratch = new Float64Array(n);
    const termIds = this.termIds;
    const ids = (s: string): number[] => {
      const out: number[] = [];
      for (const w of tokenize(s)) {
        let id = termIds.get(w);
        if (id === undefined) {
          id = termIds.size;
          termIds.set(w, id);
        }
        out.push(id);
      }
      return out;
    };
    // Pass 1: per-document weighted term frequencies into flat arrays.
    let tf = new Float32Array(4096);
    const docStart: number[] = [0];
    const flatTerm: number[] = [];
    const flatW: number[] = [];
    const touched: number[] = [];
    let total = 0;
    const add = (text: string, w: number): void => {
      for (const id of ids(text)) {
        if (id >= tf.length) {
          const bigger = new Float32Array(tf.length * 2);
          bigger.set(tf);
          tf = bigger;
        }
        if (tf[id] === 0) touched.push(id);
        tf[id] = tf[id]! + w;
      }
    };
    for (const p of this.papers) {
      this.byId.set(p.id, p);
      add(p.title, W_TITLE);
      for (const s of p.abstractSentences) add(s, W_ABSTRACT);
      if (p.fullText) for (const sec of p.fullText) for (const s of sec.sentences) add(s, W_FULLTEXT);
      let len = 0;
      for (const id of touched) {
        const w = tf[id]!;
        len += w;
        flatTerm.push(id);
        flatW.push(w);
        tf[id] = 0;
      }
      touched.length = 0;
      docStart.push(flatTerm.length);
      this.docLen[p.index] = len;
      total += len;
    }
    // Pass 2: invert into CSR postings (documents in corpus order).
    const nTerms = this.termIds.size;
    const df = new Int32Array(nTerms + 1);
    for (const id of flatTerm) df[id + 1]!++;
    const start = new Int32Array(nTerms + 1);
    for (let t = 0; t < nTerms; t++) start[t + 1] = start[t]! + df[t + 1]!;
    const fill = start.slice(0, nTerms);
    const docs = new Int32Array(flatTerm.length);
    const tfs = new Float32Array(flatTerm.length);
    for (let d = 0; d < n; d++) {
      for (let k = docStart[d]!; k < docStart[d + 1]!; k++) {
        const t = flatTerm[k]!;
        const at = fill[t]!++;
        docs[at] = d;
        tfs[at] = flatW[k]!;
      }
    }
    this.postStart = start;
    this.postDocs = docs;
    this.postTf = tfs;
    this.avgLen = n > 0 ? total / n : 1;
    this.buildMs = performance.now() - t0;
  }

  private df(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : this.postStart[id + 1]! - this.postStart[id]!;
  }

  idf(term: string): number {
    const df = this.df(term);
    const n = this.papers.length;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /**
   * Ranked hits with score > 0 that pass the filters (and `restrict`, a set of allowed paper
   * indexes), best first, ties by corpus order; at most `limit` (default 1,000).
   */
  search(query: string, filters: Filters = {}, opts: { restrict?: Set<number>; limit?: number } = {}): Hit[] {
    const terms = [...new Set(tokenize(query))];
    const scores = this.scratch;
    const touched: number[] = [];
    const { postStart, postDocs, postTf, docLen } = this;
    const avg = this.avgLen;
    for (const term of terms) {
      const id = this.termIds.get(term);
      if (id === undefined) continue;
      const idf = this.idf(term);
      for (let i = postStart[id]!, end = postStart[id + 1]!; i < end; i++) {
        const d = postDocs[i]!;
        const tf = postTf[i]!;
        const norm = tf + K1 * (1 - B + (B * docLen[d]!) / avg);
        if (scores[d] === 0) touched.push(d);
        scores[d] = scores[d]! + (idf * tf * (K1 + 1)) / norm;
      }
    }
    const journal = filters.journal_name?.trim().toLowerCase();
    const hits: Hit[] = [];
    for (const d of touched) {
      let s = scores[d]!;
      scores[d] = 0;
      const p = this.papers[d]!;
      if (opts.restrict && !opts.restrict.has(d)) continue;
      if (!matchesFilters(p, filters)) continue;
      if (journal && p.journal.toLowerCase().includes(journal)) s *= 1.5;
      hits.push({ paper: p, score: s });
    }
    hits.sort((a, b) => b.score - a.score || a.paper.index - b.paper.index);
    const limit = opts.limit ?? MAX_RESULTS;
    if (hits.length > limit) hits.length = limit;
    return hits;
  }

  private passagesOf(p: Paper): Passage[] {
    let ps = this.passages.get(p.index);
    if (!ps) {
      ps = [];
      for (const sec of p.fullText ?? []) {
        // A passage is up to two consecutive sentences of one section.
        for (let i = 0; i < sec.sentences.length; i += 2) {
          const text = sec.sentences.slice(i, i + 2).join(' ');
          ps.push({ heading: sec.heading, text, terms: new Set(tokenize(text)) });
        }
      }
      this.passages.set(p.index, ps);
    }
    return ps;
  }

  /** True when a paper may carry excerpts: open-access full text, not retracted. */
  static excerptEligible(p: Paper): boolean {
    return p.openAccess && !p.retracted && p.fullText !== null;
  }

  /**
   * Query-relevant excerpts for a page: the best passages across the whole page, at most
   * `perPaper` per paper and `perRequest` in total. Returns a map paper index → excerpts
   * (`Section: <heading> | <passage>`); papers absent from the map get null.
   */
  excerpts(query: string, page: Paper[], perPaper = 3, perRequest = 60): Map<number, string[]> {
    const terms = [...new Set(tokenize(query))];
    const idf = new Map(terms.map((t) => [t, this.idf(t)]));
    const cands: { p: Paper; order: number; score: number; text: string }[] = [];
    for (const p of page) {
      if (!SearchEngine.excerptEligible(p)) continue;
      this.passagesOf(p).forEach((ps, order) => {
        let s = 0;
        for (const t of terms) if (ps.terms.has(t)) s += idf.get(t)!;
        if (s > 0) cands.push({ p, order, score: s, text: `Section: ${ps.heading} | ${ps.text}` });
      });
    }
    cands.sort((a, b) => b.score - a.score || a.p.index - b.p.index || a.order - b.order);
    const out = new Map<number, { order: number; text: string }[]>();
    let total = 0;
    for (const c of cands) {
      if (total >= perRequest) break;
      const list = out.get(c.p.index) ?? [];
      if (list.length >= perPaper) continue;
      list.push({ order: c.order, text: c.text });
      out.set(c.p.index, list);
      total++;
    }
    const res = new Map<number, string[]>();
    for (const [k, v] of out)
      res.set(
        k,
        v.map((x) => x.text),
      );
    return res;
  }
}

const engines = new Map<string, SearchEngine>();
/** One engine per (size, seed) per process. */
export function getEngine(size = 5000, seed?: number): SearchEngine {
  const k = `${size}:${seed ?? ''}`;
  let e = engines.get(k);
  if (!e) {
    e = new SearchEngine(size, seed);
    engines.set(k, e);
  }
  return e;
}
