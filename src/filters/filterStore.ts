import * as vscode from 'vscode';
import type { SearchParams } from '../api';
import { Disposable } from '../util/disposable';

/** Every filter the search accepts, plus the two response options (semantic scores, excerpts). */
export type SearchFilters = Omit<SearchParams, 'query' | 'page' | 'page_size'>;

const STATE_KEY = 'researchDesk.filters';

export interface FilterStoreOptions {
  /** Per-workspace storage (context.workspaceState). */
  state: vscode.Memento;
  /** The default filter set (setting `researchDesk.search.defaultFilters`, resolved). */
  defaults?: () => SearchFilters;
  /** True when the plan is known to be free: excerpts are then never asked for. */
  planIsFree?: () => boolean;
}

/**
 * The active search filters of this workspace. Stored in workspaceState; until the user edits
 * them in this workspace the default filter set applies.
 */
export class FilterStore extends Disposable implements vscode.Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<SearchFilters>());
  readonly onDidChange: vscode.Event<SearchFilters> = this.changed.event;
  private filters: SearchFilters;

  constructor(private readonly options: FilterStoreOptions) {
    super();
    const stored = options.state.get<SearchFilters>(STATE_KEY);
    this.filters = stored && typeof stored === 'object' ? { ...stored } : { ...(options.defaults?.() ?? {}) };
  }

  /** The active filters (a copy). On a free plan `include_full_text_chunks` is left out. */
  get current(): SearchFilters {
    const out: SearchFilters = { ...this.filters };
    if (this.options.planIsFree?.()) delete out.include_full_text_chunks;
    return out;
  }

  async set(filters: SearchFilters): Promise<void> {
    this.filters = { ...filters };
    await this.options.state.update(STATE_KEY, this.filters);
    this.changed.fire(this.current);
  }

  async clear(): Promise<void> {
    await this.set({});
  }

  /** Short text for the view description, '' when no filter is active. */
  describe(): string {
    return Object.keys(this.current).length ? vscode.l10n.t('Filtered') : '';
  }
}
