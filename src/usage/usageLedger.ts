import * as vscode from 'vscode';
import { callsForSearch, isApiError, monthKey } from '../api';
import { Disposable } from '../util/disposable';

export interface UsageLedgerOptions {
  /** Machine-wide storage (context.globalState). */
  state: vscode.Memento;
  /** Origin of the service the key belongs to (the ledger is kept per key origin). */
  origin: () => string | undefined;
  /** Injectable clock (tests move the month). */
  now?: () => Date;
}

interface MonthRecord {
  month: string;
  spent: number;
}

/** Calls this machine spent this month, per key origin (globalState, keyed by month). */
export class UsageLedger extends Disposable implements vscode.Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange: vscode.Event<void> = this.changed.event;

  constructor(private readonly options: UsageLedgerOptions) {
    super();
  }

  private get key(): string {
    return `researchDesk.usage/${this.options.origin() ?? 'unknown'}`;
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  get spent(): number {
    const rec = this.options.state.get<MonthRecord>(this.key);
    return rec && rec.month === monthKey(this.now()) ? rec.spent : 0;
  }

  recordSearch(e: { resultCount: number; requestedPageSize: number; appliedPageSize: number }): void {
    const month = monthKey(this.now());
    void this.options.state.update(this.key, { month, spent: this.spent + callsForSearch(e.resultCount) } satisfies MonthRecord);
    this.changed.fire();
  }

  recordError(err: unknown): void {
    if (isApiError(err) && (err.kind === 'quota_exhausted' || err.kind === 'payment_required')) this.changed.fire();
  }
}
