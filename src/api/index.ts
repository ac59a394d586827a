/**
 * Public surface of the API client (the only barrel): `createClient`, `ApiError`, the request
 * and response types, the pure budget helpers and the service's vocabularies.
 */
export { createClient } from './client';
export type {
  Client,
  ClientOptions,
  GetThreadOptions,
  ListThreadsOptions,
  Logger,
  RequestOptions,
  WaitForThreadOptions,
} from './clientContract';
export { API_ERROR_KINDS, ApiError, isApiError, type ApiErrorKind, type ValidationIssue } from './errors';
export {
  type ListThreadsParams,
  type SearchFilters,
  type SearchParams,
  type ThreadAttachments,
  type ThreadRequest,
  validateSearchParams,
  validateThreadRequest,
} from './params';
export {
  parseExcerpt,
  type Citation,
  type Interaction,
  type Paper,
  type SearchResponse,
  type Thread,
  type ThreadDispatch,
  type ThreadList,
  type ThreadSummary,
} from './schemas';
export { DEFAULT_RATE_LIMITS, type Clock, type RateLimits } from './scheduler';
export {
  ADDITIONAL_CALL_USD,
  callsForSearch,
  inferPlanFromPageSize,
  monthKey,
  nextReset,
  PLANS,
  type Plan,
  type PlanId,
} from './budget';
export {
  DOMAIN_CODES,
  QUICK_SEARCH_REMOVAL_DATE,
  STUDY_TYPES,
  THREAD_MODES,
  THREAD_STATUSES,
  type DomainCode,
  type StudyType,
  type ThreadMode,
  type ThreadStatus,
} from './vocab';
