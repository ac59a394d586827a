import * as vscode from 'vscode';
import { callsForSearch, inferPlanFromPageSize, isApiError, monthKey, nextReset, PLANS, type PlanId } from '../api';
import { StorageKeys } from '../platform/ids';
import type { SettingsStore } from '../platform/settings';
import { Disposable } from '../shared/disposable';

/** Values of the setting `researchDesk.plan`. */
export type PlanSetting = 'auto' | Exclude<PlanId, 'none'>;
export const PLAN_SETTING_VALUES: readonly PlanSetting[] = ['auto', 'free', 'pro', 'teams', 'enterprise', 'deep'];

export interface UsageLedgerOptions {
  /** Machine-wide storage (context.globalState). */
  state: vscode.Memento;
  /** Origin of the service the key belongs to (the ledger is kept per key origin). */
  origin: () => string | undefined;
  /** Injectable clock (tests move the month). */
  now?: () => Date;
  /**
   * The settings store: the `researchDesk.plan` user value (a workspace's never counts) and when it changes. Without it
   * the plan is 'auto'.
   */
  settings?: Pick<SettingsStore, 'plan' | 'onDidChange'>;
}

/** What is stored per key origin (globalState), for one month. */
export interface UsageRecord {
  /** `YYYY-MM` (UTC): a record of another month counts as 0 (the pool reset on the 1st). */
  month: string;
  /** Calls charged to searches made on this machine (or the corrected figure). */
  spent: number;
  /** Plans consistent with what the service's answers showed (inferred). */
  inferred?: PlanId[];
  /** What showed it: the page_size the service capped to, or the fields only paid plans get. */
  inferredFrom?: 'pageSize' | 'fields';
  /** The page_size the service capped a request to: the plan's maximum. */
  cap?: number;
  /** A monthly-pool 429 was answered: 0 left until this date (YYYY-MM-DD). */
  exhaustedUntil?: string;
  /** A 402 was answered: billing is past due. */
  pastDue?: boolean;
  /** Number of searches recorded (for the tooltip; since the last correction). */
  searches?: number;
  /** The figure typed in "Correct the count", if the count was corrected this month. */
  correctedTo?: number;
}

export interface UsageSnapshot {
  origin: string;
  month: string;
  spent: number;
  searches: number;
  /** The figure typed in "Correct the count" this month (searches counts those since). */
  correctedTo: number | undefined;
  /** The plan used for the figures (setting, else inferred), undefined when unknown. */
  plan: PlanId | undefined;
  /** Where the plan comes from. */
  planSource: 'setting' | 'inferred' | 'unknown';
  /** For an inferred plan: what the service's answers showed (the capped page size, or paid-plan fields). */
  inferredFrom?: 'pageSize' | 'fields';
  /** Included calls of the plan (undefined when the plan is unknown; Infinity for none). */
  included: number | undefined;
  /** Calls left this month as far as this machine knows (undefined when the plan is unknown). */
  left: number | undefined;
  /** YYYY-MM-DD of the next reset. */
  resetDate: string;
  exhausted: boolean;
  pastDue: boolean;
}

const isoDate = (d: Date): string => d.toISOString().slice(0, 10);

/**
 * Calls spent this month on this machine, per key origin (globalState, keyed by month so the
 * figure resets on the 1st). The service's pool is shared with the MCP server and other
 * machines, so this is an estimate; thread costs are not known exactly (not counted here).
 */
export class UsageLedger extends Disposable implements vscode.Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange: vscode.Event<void> = this.changed.event;

  constructor(private readonly options: UsageLedgerOptions) {
    super();
    this.scheduleRollover();
    this.register({ dispose: () => clearTimeout(this.rollover) });
    if (options.settings) this.register(options.settings.onDidChange(() => this.changed.fire()));
  }

  private rollover: ReturnType<typeof setTimeout> | undefined;

  /** Fires onDidChange when the month ends (the figure resets on the 1st), then again each month. */
  private scheduleRollover(): void {
    const now = this.now();
    // setTimeout holds at most ~24.8 days; a longer wait is re-armed on the way.
    const wait = Math.min(Math.max(nextReset(now).getTime() - now.getTime() + 1000, 1000), 20 * 24 * 3600 * 1000);
    this.rollover = setTimeout(() => {
      if (this.isDisposed) return;
      this.changed.fire();
      this.scheduleRollover();
    }, wait);
    // Never keep a process alive for this.
    (this.rollover as { unref?: () => void }).unref?.();
  }

  private get origin(): string {
    return this.options.origin() ?? 'unknown';
  }

  private get key(): string {
    return StorageKeys.usagePrefix + this.origin;
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** This month's record (a fresh one when the stored one is of another month). */
  private record(): UsageRecord {
    const month = monthKey(this.now());
    const rec = this.options.state.get<UsageRecord>(this.key);
    if (rec && rec.month === month && typeof rec.spent === 'number' && Number.isFinite(rec.spent)) return { ...rec };
    // The plan inferred last month still holds.
    return { month, spent: 0, inferred: rec?.inferred, cap: rec?.cap };
  }

  private save(rec: UsageRecord): void {
    void this.options.state.update(this.key, rec);
    this.changed.fire();
  }

  /**
   * The setting `researchDesk.plan` ('auto' when unset or unknown), from user settings only: a repository's "free"
   * would shrink every page to 10 papers (10 calls for 100) and refuse deep mode.
   */
  planSetting(): PlanSetting {
    const v = this.options.settings?.plan;
    return typeof v === 'string' && (PLAN_SETTING_VALUES as readonly string[]).includes(v)
      ? (v as PlanSetting)
      : 'auto';
  }

  /** The known plan's maximum page_size (undefined when the plan or its maximum is unknown). */
  planMaxPageSize(): number | undefined {
    const s = this.snapshot();
    if (s.planSource === 'setting' && s.plan) return PLANS[s.plan].maxPageSize;
    return s.planSource === 'inferred' ? this.record().cap : undefined;
  }

  /** True only when the plan is known to be free (setting, or the service capped page_size to 10). */
  isFreePlan(): boolean {
    return this.snapshot().plan === 'free';
  }

  snapshot(): UsageSnapshot {
    const rec = this.record();
    const setting = this.planSetting();
    let plan: PlanId | undefined;
    let planSource: UsageSnapshot['planSource'] = 'unknown';
    let included: number | undefined;
    if (setting !== 'auto') {
      plan = setting;
      planSource = 'setting';
    } else if (rec.inferred?.length) {
      planSource = 'inferred';
      plan = rec.inferred[0];
    }
    if (plan) {
      // pro / teams / enterprise are told apart by nothing the service shows, but share 500 calls.
      const counts =
        planSource === 'inferred'
          ? new Set((rec.inferred ?? []).map((p) => PLANS[p].includedCalls))
          : new Set([PLANS[plan].includedCalls]);
      included = counts.size === 1 ? [...counts][0] : undefined;
    }
    const exhausted = rec.exhaustedUntil !== undefined;
    const left = exhausted ? 0 : included === undefined ? undefined : Math.max(0, included - rec.spent);
    return {
      ...(planSource === 'inferred' ? { inferredFrom: rec.inferredFrom ?? 'pageSize' } : {}),
      origin: this.origin,
      month: rec.month,
      spent: rec.spent,
      searches: rec.searches ?? 0,
      correctedTo: rec.correctedTo,
      plan,
      planSource,
      included,
      left,
      resetDate: rec.exhaustedUntil ?? isoDate(nextReset(this.now())),
      exhausted,
      pastDue: rec.pastDue === true,
    };
  }

  /** Calls this machine spent this month (for this key origin). */
  get spent(): number {
    return this.record().spent;
  }

  /**
   * A search the service answered: charged callsForSearch(resultCount). The applied page_size may tell the plan; so
   * may the results: study types and takeaways come on paid plans only (`paidFields`), which tells a paid plan from
   * the free one at the first search, even when no page was capped.
   */
  recordSearch(e: {
    resultCount: number;
    requestedPageSize: number;
    appliedPageSize: number;
    paidFields?: boolean;
  }): void {
    const rec = this.record();
    rec.spent += callsForSearch(e.resultCount);
    rec.searches = (rec.searches ?? 0) + 1;
    const inferred = inferPlanFromPageSize(e.requestedPageSize, e.appliedPageSize);
    if (inferred) {
      rec.inferred = inferred;
      rec.inferredFrom = 'pageSize';
      rec.cap = e.appliedPageSize;
    } else if (rec.cap !== undefined && e.appliedPageSize > rec.cap) {
      // A larger page than the cap we saw: the plan changed (an upgrade); forget the inference.
      delete rec.inferred;
      delete rec.inferredFrom;
      delete rec.cap;
    }
    // Paid-plan fields: a paid plan. Pro, Teams and Enterprise (500 calls) cannot be told apart from the answers; Deep
    // (2,000) neither, short of a page over 300 papers, which would cost more: the writer picks Deep from the menu.
    if (e.paidFields && (!rec.inferred?.length || rec.inferred.includes('free'))) {
      rec.inferred = ['pro', 'teams', 'enterprise'];
      rec.inferredFrom = 'fields';
      delete rec.cap;
    }
    // An answered call means the pool is not used up and billing is fine (additional usage, a payment).
    delete rec.exhaustedUntil;
    delete rec.pastDue;
    this.save(rec);
  }

  /** 429 quota_exhausted → 0 left until the reset date; 402 → billing past due. Other errors cost nothing. */
  recordError(err: unknown): void {
    if (!isApiError(err)) return;
    if (err.kind === 'quota_exhausted') {
      const rec = this.record();
      rec.exhaustedUntil = err.resetDate ?? isoDate(nextReset(this.now()));
      this.save(rec);
    } else if (err.kind === 'payment_required') {
      const rec = this.record();
      rec.pastDue = true;
      this.save(rec);
    }
  }

  /** Manual correction: the number of calls used this month according to the dashboard. */
  correct(callsUsed: number): void {
    if (!Number.isSafeInteger(callsUsed) || callsUsed < 0)
      throw new RangeError(vscode.l10n.t('The number of calls used must be a whole number, 0 or more.'));
    const rec = this.record();
    rec.spent = callsUsed;
    rec.correctedTo = callsUsed;
    rec.searches = 0;
    const included = this.snapshot().included;
    if (included !== undefined && callsUsed < included) delete rec.exhaustedUntil;
    this.save(rec);
  }
}
