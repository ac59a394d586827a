/**
 * The paging plan (pure, no vscode): the view shows results a step at a time, but the
 * service charges one call per 100 papers returned (minimum one per request), so pages are
 * fetched 100 at a time (capped by the plan's maximum page_size) and served from a buffer.
 *
 * Service rules kept here: page is 0..49, (page + 1) × page_size <= 1000, and the offset of a
 * page is page × the page size the service applied.
 */

/** Papers the view adds per Load More. */
export const DISPLAY_STEP = 20;
/** Papers per request: one billing unit. */
export const FETCH_SIZE = 100;
export const MAX_RESULTS = 1000;
export const MAX_PAGE = 49;

/** Page size to request: one billing unit, capped by the plan's maximum when known. */
export function fetchPageSize(planMaxPageSize: number | undefined): number {
  if (planMaxPageSize === undefined || !Number.isFinite(planMaxPageSize) || planMaxPageSize < 1) return FETCH_SIZE;
  return Math.max(1, Math.min(FETCH_SIZE, Math.floor(planMaxPageSize)));
}

/** Papers per Load More: never more than one fetched page, so one step costs at most one call. */
export function displayStep(pageSize: number): number {
  return Math.max(1, Math.min(DISPLAY_STEP, pageSize));
}

/** Whether the service accepts this page with this page_size. */
export function pageAllowed(page: number, pageSize: number): boolean {
  return (
    Number.isInteger(page) && page >= 0 && page <= MAX_PAGE && pageSize >= 1 && (page + 1) * pageSize <= MAX_RESULTS
  );
}

export interface PagingState {
  /** Papers in the buffer (fetched so far, in rank order). */
  fetched: number;
  /** Papers the view shows (a prefix of the buffer). */
  shown: number;
  /** Page size for the next request (after the first answer: the size the service applied). */
  pageSize: number;
  /** Whether the service said another page exists (next_page not null and is_end false). */
  serviceHasMore: boolean;
}

export type PagingStep =
  | { kind: 'show'; count: number }
  | { kind: 'fetch'; page: number; pageSize: number; thenShow: number }
  | { kind: 'none' };

/**
 * Next page to request, or undefined when none may be requested: the service said it is the
 * end, the buffer is not aligned to whole pages, or the page would break the 1,000-result or
 * 50-page limit.
 */
export function nextFetch(state: PagingState): { page: number; pageSize: number } | undefined {
  if (!state.serviceHasMore || state.pageSize < 1) return undefined;
  if (state.fetched % state.pageSize !== 0) return undefined;
  const page = state.fetched / state.pageSize;
  return pageAllowed(page, state.pageSize) ? { page, pageSize: state.pageSize } : undefined;
}

/** What Load More does: show buffered papers if any are left, else fetch the next page. */
export function planLoadMore(state: PagingState): PagingStep {
  const step = displayStep(state.pageSize);
  const left = state.fetched - state.shown;
  if (left > 0) return { kind: 'show', count: Math.min(step, left) };
  const next = nextFetch(state);
  return next ? { kind: 'fetch', ...next, thenShow: step } : { kind: 'none' };
}

/** Whether a Load More node belongs after the last shown result. */
export function hasMore(state: PagingState): boolean {
  return planLoadMore(state).kind !== 'none';
}

/**
 * Calls the service charges to show the first `n` results when each request asks for
 * `pageSize` papers (full pages: one call per 100 papers, minimum one per request). The
 * bench states the naive plan (pageSize = 20) against this one (pageSize = 100).
 */
export function callsToShow(n: number, pageSize: number): number {
  if (n <= 0) return 0;
  return Math.ceil(n / pageSize) * Math.max(1, Math.ceil(pageSize / 100));
}
