import * as vscode from 'vscode';
import { Settings, StorageKeys } from '../platform/ids';
import { trustedWorkspaceSetting } from '../platform/settings';
import { Disposable } from '../shared/disposable';
import { plainText } from '../shared/plainText';
import {
  describeFilters,
  FILTER_KEYS,
  filterProblems,
  resolveFilterObject,
  resolvePreset,
  type SearchFilters,
} from './filterModel';

export type { SearchFilters } from './filterModel';

export const PRESETS_SETTING = Settings.searchPresets;
export const DEFAULT_FILTERS_SETTING = Settings.searchDefaultFilters;

export interface FilterStoreOptions {
  /** Per-workspace storage (context.workspaceState). */
  state: vscode.Memento;
  /** True when the plan is known to be free: excerpts are then never asked for. */
  planIsFree?: () => boolean;
  /** Injectable clock ("last N years" is computed at apply time). */
  now?: () => Date;
  warn?: (message: string) => void;
}

export interface PresetEntry {
  name: string;
  /** The resolved filters, or why the preset cannot be used. */
  filters?: SearchFilters;
  problem?: string;
}

/**
 * The active search filters of this workspace. Filters the user edits (or clears) here are kept
 * in workspaceState; a workspace where they were never edited starts from the default filter
 * set (`researchDesk.search.defaultFilters`), resolved at start. The default set and the presets
 * may come from the workspace only once it is trusted (Restricted Mode reads the user's).
 */
export class FilterStore extends Disposable implements vscode.Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<SearchFilters>());
  readonly onDidChange: vscode.Event<SearchFilters> = this.changed.event;
  private filters: SearchFilters;
  /** Why the default filter set was not applied at start (a bad setting), if it was not. */
  readonly defaultsProblem: string | undefined;

  constructor(private readonly options: FilterStoreOptions) {
    super();
    const stored = options.state.get<unknown>(StorageKeys.filters);
    const storedOk =
      typeof stored === 'object' && stored !== null && !Array.isArray(stored) && filterProblems(stored).length === 0;
    if (storedOk) {
      this.filters = pick(stored);
    } else {
      const d = this.defaults();
      this.filters = d.filters ?? {};
      this.defaultsProblem = d.problem;
      if (d.problem) options.warn?.(d.problem);
    }
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** The default filter set from the setting, resolved now. */
  defaults(): { filters?: SearchFilters; problem?: string } {
    const raw = trustedWorkspaceSetting<unknown>(DEFAULT_FILTERS_SETTING);
    if (raw === undefined || raw === null) return { filters: {} };
    const res = resolveFilterObject(raw, this.now(), `The setting ${DEFAULT_FILTERS_SETTING}`);
    return res.ok ? { filters: res.filters } : { problem: res.message };
  }

  /** The presets of the setting, each resolved now (a malformed one carries its problem). */
  presets(): PresetEntry[] {
    const raw = trustedWorkspaceSetting<unknown>(PRESETS_SETTING);
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw))
      return [
        { name: PRESETS_SETTING, problem: `The setting ${PRESETS_SETTING} must be a list of {"name", "filters"}` },
      ];
    return raw.map((p, i) => {
      const r = resolvePreset(p, this.now(), i);
      return r.ok ? { name: r.name, filters: r.filters } : { name: r.name, problem: r.message };
    });
  }

  /** True when excerpts are left out because the plan is free. */
  get excerptsWithheld(): boolean {
    return this.filters.include_full_text_chunks === true && this.options.planIsFree?.() === true;
  }

  /** The active filters (a copy). On a free plan `include_full_text_chunks` is left out. */
  get current(): SearchFilters {
    const out: SearchFilters = { ...this.filters };
    if (this.options.planIsFree?.()) delete out.include_full_text_chunks;
    return out;
  }

  /** Replaces the active filters. Rejects (and keeps the old ones) when they break a rule. */
  async set(filters: SearchFilters): Promise<void> {
    const problems = filterProblems(filters);
    if (problems.length) throw new Error(vscode.l10n.t('These filters cannot be sent: {0}.', problems.join('; ')));
    this.filters = pick(filters);
    await this.options.state.update(StorageKeys.filters, this.filters);
    this.changed.fire(this.current);
  }

  async clear(): Promise<void> {
    await this.set({});
  }

  /**
   * Short text for the view description, '' when no filter is active. Also shown in Quick Pick titles and CodeLens
   * titles, which draw `$(icon)`: values from a preset or the default set (settings) are shown plain.
   */
  describe(): string {
    return plainText(describeFilters(this.current));
  }
}

/** Only the known keys, without undefined values. */
function pick(f: SearchFilters): SearchFilters {
  const out: Record<string, unknown> = {};
  const r = f as Record<string, unknown>;
  for (const k of FILTER_KEYS) if (r[k] !== undefined && r[k] !== null) out[k] = r[k];
  return out;
}
