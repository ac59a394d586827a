/**
 * Closed vocabularies of the service (spec "Resources" and "GET /v1/search"): study types,
 * domain short codes, thread modes and statuses. Shared by validation, schemas and the UI.
 */

/** `StudyTypeKeywordEnum`, in the order the spec lists them. */
export const STUDY_TYPES = [
  'bench experiment',
  'case report',
  'case study',
  'case-control study',
  'cohort study',
  'commentary or perspective',
  'cross-sectional study',
  'field study',
  'historical or archival analysis',
  'interview study',
  'literature review',
  'longitudinal / panel data study',
  'meta-analysis',
  'mixed methods study',
  'non-randomized experimental study',
  'non-rct in vitro',
  'other',
  'rct',
  'systematic review',
  'theoretical, modeling, or simulation study',
  'non-rct experimental',
  'non-rct observational study',
  'animal',
] as const;
export type StudyType = (typeof STUDY_TYPES)[number];

/** Academic field short codes accepted by `domain`. */
export const DOMAIN_CODES = [
  'med',
  'bio',
  'cs',
  'chem',
  'psych',
  'phys',
  'mat',
  'eng',
  'env',
  'bus',
  'econ',
  'math',
  'poli',
  'agri',
  'edu',
  'soc',
  'geol',
  'geog',
  'hist',
  'art',
  'philo',
  'law',
  'ling',
] as const;
export type DomainCode = (typeof DOMAIN_CODES)[number];

export const THREAD_MODES = ['pro', 'deep'] as const;
export type ThreadMode = (typeof THREAD_MODES)[number];

export const THREAD_STATUSES = ['running', 'idle', 'failed'] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];

/** `GET /v1/quick_search` is removed on this date (spec "Versioning"). */
export const QUICK_SEARCH_REMOVAL_DATE = '2027-02-07';
