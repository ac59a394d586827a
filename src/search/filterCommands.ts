import * as vscode from 'vscode';
import { FilterEditor } from './filterEditor';
import type { FilterStore, PresetEntry } from './filterStore';
import { EXCERPTS_NEED_PAID_PLAN, filterProblems, type SearchFilters } from './filterModel';
import { showError, showInfo } from '../platform/notify';
import { plainText } from '../shared/plainText';

/** Result of a filter command run programmatically (tests, keybindings with args, other commands). */
export type FilterCommandResult = { ok: true; filters: SearchFilters } | { ok: false; message: string };

/**
 * Edit Search Filters, Clear Filters and Apply Filter Preset. Each also takes an optional
 * argument for programmatic use: a filter object for Edit (validated like typed input), a
 * preset name for Apply Filter Preset.
 */
export class FilterCommands {
  readonly editor: FilterEditor;

  constructor(
    private readonly store: FilterStore,
    private readonly isFreePlan: () => boolean,
    /** The search the Research view shows: its query, and running it again under the new filters. */
    private readonly search: { shownQuery(): string | undefined; rerun(): Promise<unknown> } = {
      shownQuery: () => undefined,
      rerun: () => Promise.resolve(undefined),
    },
  ) {
    this.editor = new FilterEditor(
      store,
      isFreePlan,
      () => this.pickPreset(),
      () => search.shownQuery(),
    );
  }

  async edit(arg?: unknown): Promise<FilterCommandResult | undefined> {
    if (arg === undefined) {
      const applied = await this.editor.run();
      if (applied) this.noteWithheldExcerpts();
      if (applied) await this.rerun();
      return applied ? { ok: true, filters: applied } : undefined;
    }
    if (typeof arg !== 'object' || arg === null || Array.isArray(arg))
      return this.fail(vscode.l10n.t('Edit Search Filters takes a filter object.'));
    const problems = filterProblems(arg);
    if (problems.length) return this.fail(vscode.l10n.t('These filters cannot be sent: {0}.', problems.join('; ')));
    await this.store.set(arg);
    this.noteWithheldExcerpts();
    return { ok: true, filters: this.store.current };
  }

  async clear(): Promise<FilterCommandResult> {
    await this.store.clear();
    return { ok: true, filters: this.store.current };
  }

  /**
   * The writer applied filters in the editor: the search on show runs again under them (the Apply row said what it
   * costs). Clear Filters and Apply Filter Preset say nothing of a cost, so they leave the view's "Refresh to apply".
   */
  private async rerun(): Promise<void> {
    if (this.search.shownQuery() !== undefined) await this.search.rerun();
  }

  async applyPreset(name?: unknown): Promise<FilterCommandResult | undefined> {
    let entry: PresetEntry | undefined;
    if (name === undefined) {
      entry = await this.choosePreset();
      if (!entry) return undefined;
    } else {
      if (typeof name !== 'string') return this.fail(vscode.l10n.t('Apply Filter Preset takes a preset name.'));
      const presets = this.store.presets();
      entry = presets.find((p) => p.name === name);
      if (!entry)
        return this.fail(
          vscode.l10n.t(
            'No filter preset is named "{0}". Presets: {1}.',
            name,
            presets.map((p) => p.name).join(', ') || vscode.l10n.t('none'),
          ),
        );
    }
    if (!entry.filters) return this.fail(vscode.l10n.t('The filter preset cannot be used: {0}.', entry.problem ?? ''));
    await this.store.set(entry.filters);
    this.noteWithheldExcerpts();
    return { ok: true, filters: this.store.current };
  }

  /** For the editor's Presets step: the chosen preset's filters (not stored yet). */
  private async pickPreset(): Promise<SearchFilters | undefined> {
    const entry = await this.choosePreset();
    if (entry && !entry.filters)
      void this.fail(vscode.l10n.t('The filter preset cannot be used: {0}.', entry.problem ?? ''));
    return entry?.filters;
  }

  private async choosePreset(): Promise<PresetEntry | undefined> {
    const presets = this.store.presets();
    if (!presets.length) {
      void showInfo(vscode.l10n.t('No filter presets: add some in the setting researchDesk.search.presets.'));
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      // Preset names come from settings (a trusted workspace's too): shown without icon or link syntax.
      presets.map((p) => ({
        label: p.filters ? plainText(p.name, 200) : `$(warning) ${plainText(p.name, 200)}`,
        description: p.filters ? undefined : vscode.l10n.t('cannot be used'),
        detail: p.problem === undefined ? undefined : plainText(p.problem),
        entry: p,
      })),
      {
        title: vscode.l10n.t('Apply Filter Preset'),
        placeHolder: vscode.l10n.t('Presets from the setting researchDesk.search.presets'),
      },
    );
    return picked?.entry;
  }

  private noteWithheldExcerpts(): void {
    if (this.store.excerptsWithheld)
      void showInfo(vscode.l10n.t('{0}: searches leave the excerpts option out.', EXCERPTS_NEED_PAID_PLAN));
  }

  private fail(message: string): FilterCommandResult {
    void showError(message);
    return { ok: false, message };
  }
}
