import * as vscode from 'vscode';
import { studyTypeLabel } from '../shared/studyTypes';
import type { FilterStore } from './filterStore';
import {
  COUNTRY_CODES,
  countryName,
  describeFilters,
  DOMAIN_CODES,
  DOMAIN_NAMES,
  EXCERPTS_NEED_PAID_PLAN,
  FILTER_FIELDS,
  fieldValueText,
  filterIssues,
  listItems,
  parseFieldInput,
  STUDY_TYPES,
  withValues,
  type FilterField,
  type SearchFilters,
} from './filterModel';
import { showError, showInfo } from '../platform/notify';
import { plainText } from '../shared/plainText';

/** Two filter sets are the same when they hold the same values (key order aside). */
function sameFilters(a: SearchFilters, b: SearchFilters): boolean {
  const canon = (f: SearchFilters): string => JSON.stringify(Object.entries(f).sort(([x], [y]) => (x < y ? -1 : 1)));
  return canon(a) === canon(b);
}

type Row = vscode.QuickPickItem & { action: 'apply' | 'clear' | 'defaults' | 'presets' | 'field'; field?: FilterField };
type Choice<T> = vscode.QuickPickItem & { value: T };

const BACK = Symbol('back');
type Back = typeof BACK;

/**
 * Edit Search Filters: a multi-step Quick Pick. Step 1 lists every filter with its current value
 * (and Apply, Clear all, Presets); picking a filter edits it in step 2 (an input box validated as
 * you type with the client's rules, a yes/no/any pick, or a multi-select), Back returns to step 1.
 * Nothing is stored until Apply.
 */
export class FilterEditor {
  /** The quick input on screen (for the extension-host tests, which drive it like a person). */
  active: vscode.QuickPick<vscode.QuickPickItem> | vscode.InputBox | undefined;

  constructor(
    private readonly store: FilterStore,
    private readonly isFreePlan: () => boolean,
    private readonly pickPreset: () => Promise<SearchFilters | undefined>,
    /** The search Apply runs again (the Research view's), if one is shown: its query. */
    private readonly shownQuery: () => string | undefined = () => undefined,
  ) {}

  /** Runs the editor; resolves with the applied filters, or undefined when cancelled. */
  async run(): Promise<SearchFilters | undefined> {
    let draft: SearchFilters = this.store.current;
    let focus: string | undefined;
    for (;;) {
      let row = await this.stepOne(draft, focus);
      // Escape with changes not applied: asked, not thrown away (a second Escape discards).
      if (!row && !sameFilters(draft, this.store.current)) {
        const choice = await this.askDiscard(draft);
        if (choice === 'keep') continue;
        if (choice === 'apply') row = { label: '', action: 'apply' };
      }
      if (!row) return undefined;
      if (row.action === 'apply') {
        // A combination can break a cross-field rule (months left without their years): say
        // which, and keep the editor open with everything typed so far.
        const problems = filterIssues(draft);
        if (problems.length) {
          void showError(vscode.l10n.t('These filters cannot be used: {0}.', problems.map((p) => p.text).join('; ')));
          continue;
        }
        await this.store.set(draft);
        return this.store.current;
      }
      if (row.action === 'clear') {
        draft = {};
        focus = undefined;
        continue;
      }
      if (row.action === 'defaults') {
        const d = this.store.defaults();
        if (d.problem) void showError(d.problem);
        else draft = d.filters ?? {};
        continue;
      }
      if (row.action === 'presets') {
        const preset = await this.pickPreset();
        if (preset) draft = preset;
        continue;
      }
      const field = row.field;
      if (!field) continue;
      focus = field.id;
      if (field.id === 'include_full_text_chunks' && this.isFreePlan()) {
        void showInfo(
          vscode.l10n.t('{0}. Set the plan from the status bar if it is not free.', EXCERPTS_NEED_PAID_PLAN),
        );
        continue;
      }
      const next = await this.stepTwo(field, draft);
      if (next !== BACK && next !== undefined) draft = next;
    }
  }

  private stepOne(draft: SearchFilters, focus: string | undefined): Promise<Row | undefined> {
    const qp = vscode.window.createQuickPick<Row>();
    qp.title = vscode.l10n.t('Edit Search Filters');
    qp.step = 1;
    qp.totalSteps = 2;
    qp.placeholder = vscode.l10n.t('Pick a filter to change it, then Apply');
    qp.matchOnDescription = true;
    const summary = describeFilters(draft);
    const problems = filterIssues(draft).map((p) => p.text);
    const free = this.isFreePlan();
    const query = this.shownQuery();
    const rows: Row[] = [
      {
        label: `$(check) ${vscode.l10n.t('Apply')}`,
        // The draft may come from a preset or the default filters (settings): its text is shown plain.
        description: plainText(summary, 300) || vscode.l10n.t('no filters'),
        detail: problems.length
          ? `$(warning) ${plainText(problems.join('; '))}`
          : query !== undefined
            ? vscode.l10n.t(
                'and search “{0}” again with them: one call of your monthly pool, unless this session has the answer',
                plainText(query, 60),
              )
            : undefined,
        action: 'apply',
        alwaysShow: true,
      },
      { label: `$(clear-all) ${vscode.l10n.t('Clear all')}`, action: 'clear', alwaysShow: true },
      {
        label: `$(bookmark) ${vscode.l10n.t('Presets…')}`,
        description: vscode.l10n.t('from the setting researchDesk.search.presets'),
        action: 'presets',
        alwaysShow: true,
      },
      {
        label: `$(discard) ${vscode.l10n.t('Default filters')}`,
        description: vscode.l10n.t('from the setting researchDesk.search.defaultFilters'),
        action: 'defaults',
      },
      { label: vscode.l10n.t('Filters'), kind: vscode.QuickPickItemKind.Separator, action: 'field' },
      ...FILTER_FIELDS.map((field): Row => {
        const value = fieldValueText(field, draft);
        if (field.id === 'include_full_text_chunks' && free)
          return {
            label: `$(lock) ${vscode.l10n.t(field.label)}`,
            description: vscode.l10n.t('unavailable'),
            detail: EXCERPTS_NEED_PAID_PLAN,
            action: 'field',
            field,
          };
        return {
          label: vscode.l10n.t(field.label),
          description: value || vscode.l10n.t('any'),
          action: 'field',
          field,
        };
      }),
    ];
    qp.items = rows;
    const focused = rows.find((r) => r.field?.id === focus);
    if (focused) qp.activeItems = [focused];
    return this.show(qp, () => qp.selectedItems[0] ?? KEEP_OPEN).then((r) => (r === BACK ? undefined : r));
  }

  /** Escape with unapplied changes: apply them, keep editing, or discard them (Escape again discards). */
  private askDiscard(draft: SearchFilters): Promise<'apply' | 'keep' | 'discard'> {
    type Item = vscode.QuickPickItem & { choice: 'apply' | 'keep' | 'discard' };
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = vscode.l10n.t('Your filter changes are not applied');
    qp.placeholder = vscode.l10n.t('Escape again discards them');
    qp.items = [
      { label: `$(edit) ${vscode.l10n.t('Keep Editing')}`, choice: 'keep' },
      {
        label: `$(check) ${vscode.l10n.t('Apply Them')}`,
        description: plainText(describeFilters(draft), 200) || vscode.l10n.t('no filters'),
        choice: 'apply',
      },
      { label: `$(discard) ${vscode.l10n.t('Discard Changes')}`, choice: 'discard' },
    ];
    return this.show(qp, () => qp.selectedItems[0]?.choice ?? KEEP_OPEN).then((r) =>
      r === BACK || r === undefined ? 'discard' : r,
    );
  }

  /** Step 2 for one filter: resolves with the new draft, BACK, or undefined (cancelled). */
  private stepTwo(field: FilterField, draft: SearchFilters): Promise<SearchFilters | Back | undefined> {
    const r = draft as Record<string, unknown>;
    const key = field.keys[0]!;
    switch (field.kind) {
      case 'bool': {
        const cur = r[key];
        const items: Choice<boolean | undefined>[] = [
          { label: vscode.l10n.t('Any (not set)'), value: undefined, picked: cur === undefined },
          { label: vscode.l10n.t('Yes'), value: true, picked: cur === true },
          { label: vscode.l10n.t('No'), value: false, picked: cur === false },
        ];
        return this.pickOne(field, items, (v) => withValues(draft, { [key]: v }));
      }
      case 'studyTypes':
        return this.pickMany(
          field,
          STUDY_TYPES.map((s) => ({ label: vscode.l10n.t(studyTypeLabel(s)), value: s })),
          listItems(r[key]),
          (v) => withValues(draft, { [key]: v }),
        );
      case 'domains':
        return this.pickMany(
          field,
          DOMAIN_CODES.map((d) => ({ label: DOMAIN_NAMES[d], description: d, value: d })),
          listItems(r[key]),
          (v) => withValues(draft, { [key]: v }),
        );
      case 'countries':
        return this.pickMany(
          field,
          COUNTRY_CODES.map((c) => ({ label: countryName(c), description: c, value: c })).sort((a, b) =>
            a.label.localeCompare(b.label),
          ),
          listItems(r[key]).map((c) => c.toUpperCase()),
          (v) => withValues(draft, { [key]: v }),
        );
      default:
        return this.input(field, draft);
    }
  }

  private input(field: FilterField, draft: SearchFilters): Promise<SearchFilters | Back | undefined> {
    const ib = vscode.window.createInputBox();
    ib.title = vscode.l10n.t(field.label);
    ib.step = 2;
    ib.totalSteps = 2;
    ib.prompt = field.prompt ? vscode.l10n.t(field.prompt) : undefined;
    ib.placeholder = field.placeholder;
    ib.buttons = [vscode.QuickInputButtons.Back];
    const r = draft as Record<string, unknown>;
    ib.value =
      field.kind === 'range'
        ? [r[field.keys[0]!], r[field.keys[1]!]].some((v) => v !== undefined)
          ? `${numText(r[field.keys[0]!])}-${numText(r[field.keys[1]!])}`
          : ''
        : field.kind === 'names'
          ? listItems(r[field.keys[0]!]).join('; ')
          : numText(r[field.keys[0]!]);
    const check = (): ReturnType<typeof parseFieldInput> => {
      const parsed = parseFieldInput(field, ib.value, draft);
      ib.validationMessage = parsed.ok
        ? undefined
        : { message: parsed.message, severity: vscode.InputBoxValidationSeverity.Error };
      return parsed;
    };
    ib.onDidChangeValue(check);
    check();
    return this.show(ib, () => {
      const parsed = check();
      return parsed.ok ? withValues(draft, parsed.values) : KEEP_OPEN;
    });
  }

  private pickOne<T>(
    field: FilterField,
    items: Choice<T>[],
    done: (v: T) => SearchFilters,
  ): Promise<SearchFilters | Back | undefined> {
    const qp = vscode.window.createQuickPick<Choice<T>>();
    qp.title = vscode.l10n.t(field.label);
    qp.step = 2;
    qp.totalSteps = 2;
    qp.buttons = [vscode.QuickInputButtons.Back];
    qp.items = items;
    const picked = items.find((i) => i.picked);
    if (picked) qp.activeItems = [picked];
    return this.show(qp, () => {
      const sel = qp.selectedItems[0];
      return sel ? done(sel.value) : KEEP_OPEN;
    });
  }

  private pickMany<T extends string>(
    field: FilterField,
    items: Choice<T>[],
    current: string[],
    done: (v: T[]) => SearchFilters,
  ): Promise<SearchFilters | Back | undefined> {
    const qp = vscode.window.createQuickPick<Choice<T>>();
    qp.title = vscode.l10n.t(field.label);
    qp.step = 2;
    qp.totalSteps = 2;
    qp.canSelectMany = true;
    qp.matchOnDescription = true;
    qp.placeholder = vscode.l10n.t('Check the ones to keep (none = any), then press Enter');
    qp.buttons = [vscode.QuickInputButtons.Back];
    qp.items = items;
    qp.selectedItems = items.filter((i) => current.includes(i.value));
    return this.show(qp, () => done(qp.selectedItems.map((i) => i.value)));
  }

  /** Shows a quick input; `accept` gives the result (KEEP_OPEN leaves it open), Back → BACK, hide → undefined. */
  private show<R>(q: QuickInputLike, accept: () => R | typeof KEEP_OPEN): Promise<R | Back | undefined> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (v: R | Back | undefined): void => {
        if (done) return;
        done = true;
        resolve(v);
        q.dispose();
        if (this.active === (q as unknown)) this.active = undefined;
      };
      q.onDidAccept(() => {
        const v = accept();
        if (v !== KEEP_OPEN) finish(v);
      });
      q.onDidTriggerButton((b) => {
        if (b === vscode.QuickInputButtons.Back) finish(BACK);
      });
      q.onDidHide(() => finish(undefined));
      this.active = q as vscode.QuickPick<vscode.QuickPickItem> | vscode.InputBox;
      q.show();
    });
  }
}

const KEEP_OPEN = Symbol('keep open');

type QuickInputLike = vscode.QuickInput & {
  readonly onDidAccept: vscode.Event<void>;
  readonly onDidTriggerButton: vscode.Event<vscode.QuickInputButton>;
};

const numText = (v: unknown): string => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '');
