/**
 * Pure helpers for the monthly call budget (spec "Limits"): calls charged by a search, the
 * plan table, plan inference from the page_size the service applied, and the monthly reset.
 */

export type PlanId = 'none' | 'free' | 'pro' | 'teams' | 'enterprise' | 'deep';

export interface Plan {
  id: PlanId;
  label: string;
  /** Included calls per month (`Infinity` for MCP without an account). */
  includedCalls: number;
  /** Maximum calls per month with additional usage (`undefined` where not applicable). */
  maxCallsWithAdditional: number | undefined;
  /** Maximum page_size (`undefined` = custom, enterprise). */
  maxPageSize: number | undefined;
  /** Whether additional usage (0.05 USD per call) can be enabled. */
  additionalUsage: boolean;
}

export const CALLS_PER_PAPERS = 100;
export const ADDITIONAL_CALL_USD = 0.05;

export const PLANS: Readonly<Record<PlanId, Plan>> = {
  none: {
    id: 'none',
    label: 'No account (MCP only)',
    includedCalls: Infinity,
    maxCallsWithAdditional: undefined,
    maxPageSize: 3,
    additionalUsage: false,
  },
  free: {
    id: 'free',
    label: 'Free',
    includedCalls: 30,
    maxCallsWithAdditional: 30,
    maxPageSize: 10,
    additionalUsage: false,
  },
  pro: {
    id: 'pro',
    label: 'Pro',
    includedCalls: 500,
    maxCallsWithAdditional: 1000,
    maxPageSize: 300,
    additionalUsage: true,
  },
  teams: {
    id: 'teams',
    label: 'Teams',
    includedCalls: 500,
    maxCallsWithAdditional: 1000,
    maxPageSize: 300,
    additionalUsage: true,
  },
  enterprise: {
    id: 'enterprise',
    label: 'Enterprise',
    includedCalls: 500,
    maxCallsWithAdditional: 1000,
    maxPageSize: undefined,
    additionalUsage: true,
  },
  deep: {
    id: 'deep',
    label: 'Deep',
    includedCalls: 2000,
    maxCallsWithAdditional: 10000,
    maxPageSize: 750,
    additionalUsage: true,
  },
};

/** Calls charged for a search that returned `resultCount` papers: one per 100, rounded up, minimum 1. */
export function callsForSearch(resultCount: number): number {
  return Math.max(1, Math.ceil(Math.max(0, resultCount) / CALLS_PER_PAPERS));
}

/**
 * Plans consistent with the service capping `requested` to `applied`. Only a cap is
 * conclusive: when `applied >= requested` nothing can be told and `undefined` is returned.
 * 10 → free; 300 → pro, teams or enterprise (ambiguous); 750 → deep; any other cap → enterprise
 * (custom); 3 → none.
 */
export function inferPlanFromPageSize(requested: number, applied: number): PlanId[] | undefined {
  if (!(applied < requested)) return undefined;
  const exact = Object.values<Plan>(PLANS)
    .filter((p) => p.maxPageSize === applied)
    .map((p) => p.id);
  if (exact.length) return applied === 300 ? [...exact, 'enterprise'] : exact;
  return ['enterprise'];
}

/** Start of the next month (the 1st, 00:00 UTC): when the monthly pool resets. */
export function nextReset(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
}

/** `YYYY-MM` (UTC) of a date: the key of a monthly usage ledger. */
export function monthKey(date: Date): string {
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}
