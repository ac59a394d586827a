/**
 * Where a page of search results comes from, kept apart from the session that runs searches, shows them and reports
 * errors: the session cache, a request already on its way (shared, never sent twice), or the service. It also keeps
 * what answers taught about each account. No vscode here: the session hands in the client, the key and the settings.
 */
import { createHash } from 'node:crypto';
import { inferPlanFromPageSize, type Client, type SearchParams, type SearchResponse } from '../api/index';
import type { Logger } from '../platform/logger';
import type { ServiceSettings } from '../platform/settings';
import { cacheKey, SearchCache } from './cache';
import type { SearchFilters } from './filterModel';

/** What the session reports to the UsageLedger: each search answered (page sizes asked and applied) and each error. */
export interface UsageSink {
  recordSearch(e: {
    resultCount: number;
    requestedPageSize: number;
    appliedPageSize: number;
    paidFields?: boolean;
  }): void;
  recordError(err: unknown): void;
}

/**
 * What answers taught about an account: the page size the service capped to (the free plan caps at 10), and that
 * excerpts are not allowed (a cap of 10, or a 403).
 */
export interface PlanFacts {
  maxPageSize?: number;
  noExcerpts?: boolean;
}

export interface SearchPagesDeps {
  clients: { get(): { client: Client; service: ServiceSettings } };
  /** The key for an origin (hashed into the cache scope, never kept). */
  keyFor: (origin: string | undefined) => Promise<string | undefined>;
  usage?: UsageSink;
  /** The plan's maximum page_size when a setting says it (undefined = unknown). */
  planMaxPageSize?: () => number | undefined;
  /** Cache lifetime in minutes (0 turns the cache off). */
  cacheMinutes: () => number;
  log: Pick<Logger, 'info'>;
}

/** A page and whether a request was sent for it (false: the cache answered, or a request on its way was shared). */
export interface FetchedPage {
  response: SearchResponse;
  sent: boolean;
}

/**
 * Every request is reported to the usage ledger; cache hits and shared answers are not requests. Cached pages and
 * what was learnt are kept per cache scope (service address + a hash of the key), so a key switch never sees
 * another account's pages or inherits its limits.
 */
export class SearchPages {
  private readonly cache: SearchCache<SearchResponse>;
  private readonly learnt = new Map<string, PlanFacts>();
  /** Requests on their way, by cache key: an identical request waits for the answer instead of paying again. */
  private readonly inFlight = new Map<string, Promise<SearchResponse>>();

  constructor(private readonly deps: SearchPagesDeps) {
    this.cache = new SearchCache<SearchResponse>({ minutes: deps.cacheMinutes, maxEntries: 200 });
  }

  /** Drops the cached pages and what was learnt (the stored key changed). */
  forget(): void {
    this.cache.clear();
    this.learnt.clear();
  }

  /** The cache scope: service address and a hash of the key (a new key never sees another account's pages). */
  async scope(service: ServiceSettings): Promise<string> {
    const key = await this.deps.keyFor(service.origin);
    const tag = key ? createHash('sha256').update(key).digest('hex').slice(0, 16) : 'nokey';
    return `${service.baseUrl}#${tag}`;
  }

  /** What answers taught about the account of `scope`. */
  facts(scope: string): PlanFacts {
    return this.learnt.get(scope) ?? {};
  }

  learn(scope: string, facts: PlanFacts): void {
    this.learnt.set(scope, { ...this.learnt.get(scope), ...facts });
  }

  /** The page size cap: the plan setting's and the learnt one, the smaller when both are known. */
  maxPageSize(scope: string): number | undefined {
    const fromSetting = this.deps.planMaxPageSize?.();
    const learnt = this.learnt.get(scope)?.maxPageSize;
    if (fromSetting !== undefined && learnt !== undefined) return Math.min(fromSetting, learnt);
    return fromSetting ?? learnt;
  }

  async fetch(
    scope: string,
    query: string,
    filters: SearchFilters,
    page: number,
    pageSize: number,
    bypassCache: boolean,
    signal: AbortSignal,
  ): Promise<FetchedPage> {
    const params: SearchParams = { ...filters, query, page, page_size: pageSize };
    const key = cacheKey(scope, params);
    if (!bypassCache) {
      const hit = this.cache.get(key);
      if (hit) {
        this.deps.log.info(
          `Search: page ${page} (page_size ${pageSize}) answered from the session cache; no call spent.`,
        );
        return { response: hit, sent: false };
      }
    }
    const joined = this.inFlight.get(key);
    if (joined) {
      try {
        const response = await untilAborted(joined, signal);
        this.deps.log.info(
          `Search: page ${page} (page_size ${pageSize}) was already on its way; its answer is shared, no second call.`,
        );
        return { response, sent: false };
      } catch (err) {
        // The caller that sent it gave up (a new search): ask for it ourselves, unless we gave up too.
        if (signal.aborted || !isAborted(err)) throw err;
      }
    }
    const { client } = this.deps.clients.get();
    let response: SearchResponse;
    const request = client.search(params, { signal });
    this.inFlight.set(key, request);
    try {
      response = await request;
    } catch (err) {
      if (!isAborted(err)) this.deps.usage?.recordError(err);
      throw err;
    } finally {
      if (this.inFlight.get(key) === request) this.inFlight.delete(key);
    }
    this.deps.usage?.recordSearch({
      resultCount: response.results.length,
      requestedPageSize: pageSize,
      appliedPageSize: response.page_size,
      paidFields: response.results.some((r) => !!r.study_type || !!r.takeaway),
    });
    this.learnFrom(scope, pageSize, response.page_size);
    this.cache.set(key, response);
    return { response, sent: true };
  }

  private learnFrom(scope: string, requested: number, applied: number): void {
    const plans = inferPlanFromPageSize(requested, applied);
    if (!plans) return;
    this.learn(scope, {
      maxPageSize: applied,
      ...(plans.length === 1 && plans[0] === 'free' ? { noExcerpts: true } : {}),
    });
    this.deps.log.info(
      `Search: the service applied page_size ${applied} (asked ${requested}); later requests ask for ${applied}.`,
    );
  }
}

/**
 * An `aborted` ApiError, or the look-alike `untilAborted` rejects with: duck-typed like the error presenter's
 * `isApiError`, since an error from another bundle is not an instance of this one's class.
 */
function isAborted(err: unknown): boolean {
  return err instanceof Error && (err as { kind?: unknown }).kind === 'aborted';
}

/** `promise`, or an `aborted` ApiError-like rejection as soon as `signal` aborts (the request itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortedError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e: unknown) => (
        signal.removeEventListener('abort', onAbort),
        reject(e instanceof Error ? e : new Error(String(e)))
      ),
    );
  });
}

function abortedError(): Error {
  return Object.assign(new Error('The search was cancelled.'), { kind: 'aborted' });
}
