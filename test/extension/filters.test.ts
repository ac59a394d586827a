/**
 * Filters in the real VS Code against the emulator: the filter model (FilterStore, the
 * multi-step editor driven like a person, presets, the default set) produces exactly the
 * query the service receives; bad input is refused with its rule and nothing is sent; a free
 * plan never asks for excerpts.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { FilterCommandResult } from '../../src/search/filterCommands';
import { FilterStore } from '../../src/search/filterStore';
import type { SearchFilters } from '../../src/search/filterModel';
import { Commands, Settings } from '../../src/platform/ids';
import { searchQueryString } from '../../src/api/serialize';
import type { SearchOutcome } from '../../src/search/searchSession';
import {
  api,
  control,
  emulatorUrl,
  eventually,
  setUserSettings,
  sleep,
  testCore,
  useEmulatorKeepingKey,
} from './support';

interface EmuRequest {
  route: string;
  query: Record<string, string | string[]>;
  keyLabel: string | null;
  status: number;
}

let counter = 0;
/** A fresh emulator key of the plan, stored for the emulator's origin; returns its log label. */
export async function freshKey(plan: string, extra: Record<string, unknown> = {}): Promise<string> {
  const label = `filters-test-${Date.now()}-${++counter}`;
  const key = await control<string>('provisionKey', { plan, label, ...extra });
  await (await api()).keys.set(key, new URL(await emulatorUrl()).origin);
  return label;
}

export async function searchesOf(label: string): Promise<EmuRequest[]> {
  return (await control<EmuRequest[]>('requests')).filter((r) => r.keyLabel === label && r.route === 'search');
}

const run = <T>(id: string, ...args: unknown[]): Thenable<T | undefined> =>
  vscode.commands.executeCommand<T>(id, ...args);

/** The received query without paging, as sorted [name, value] pairs (repeated names joined). */
function received(r: EmuRequest | undefined): [string, string][] {
  assert.ok(r, 'no request reached the service');
  return Object.entries(r.query)
    .filter(([k]) => k !== 'page' && k !== 'page_size')
    .map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(',') : v])
    .sort(([a], [b]) => a.localeCompare(b));
}

/** What the client's own serialisation makes of these filters (the expected wire form). */
function expected(query: string, f: SearchFilters): [string, string][] {
  return [...new URLSearchParams(searchQueryString({ query, ...f })).entries()].sort(([a], [b]) => a.localeCompare(b));
}

/** Presses Enter on the quick input until `done` holds (the input moved on). */
async function accept(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 50 && !done(); i++) {
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await sleep(100);
  }
  assert.ok(done(), `the quick input did not move on: ${what}`);
}

const asPick = (q: unknown): Pick => q as Pick;
type Pick = vscode.QuickPick<vscode.QuickPickItem & { field?: { id: string }; action?: string; value?: unknown }>;

export function filtersSuite(): void {
  suite('Filters (real VS Code against the emulator)', () => {
    let restore: (() => Promise<void>) | undefined;

    suiteSetup(async () => {
      const s = await useEmulatorKeepingKey();
      const restorePlan = await setUserSettings({ [Settings.plan]: undefined, [Settings.searchCacheMinutes]: 0 });
      restore = async () => {
        await restorePlan();
        await s.restore();
      };
    });

    suiteTeardown(async () => {
      const core = await testCore();
      await core.filters.clear();
      await run(Commands.clearResults);
      await restore?.();
    });

    test('every filter set through Edit Search Filters reaches the service exactly as the client serialises it', async () => {
      const label = await freshKey('pro');
      const filters: SearchFilters = {
        year_min: 2010,
        year_max: 2024,
        month_min: 3,
        month_max: 9,
        study_types: ['rct', 'meta-analysis'],
        human: true,
        controlled: false,
        sample_size_min: 30,
        sjr_min: 1,
        sjr_max: 2,
        citation_min: 5,
        duration_min: 7,
        duration_max: 400,
        exclude_preprints: true,
        open_access: true,
        publisher_name: ['Elsevier', 'Springer Nature'],
        domain: ['med', 'psych'],
        country: ['US', 'GB'],
        journal_name: 'Nutrients',
        clinical_guideline: true,
        medical_mode: false,
        include_semantic_score: true,
        include_full_text_chunks: true,
      };
      const res = await run<FilterCommandResult>(Commands.editFilters, filters);
      assert.ok(res?.ok, res && !res.ok ? res.message : 'no result');
      const core = await testCore();
      assert.deepEqual(core.filters.current, filters);
      const out = await run<SearchOutcome>(Commands.searchPapers, 'exercise and memory');
      assert.ok(out && out.outcome !== 'error', out?.message);
      const sent = await searchesOf(label);
      assert.equal(sent.length, 1);
      assert.deepEqual(received(sent[0]), expected('exercise and memory', filters));
      // Spot checks against the spec's wire form (comma-separated lists, booleans as words).
      const q = sent[0]!.query;
      assert.equal([q.study_types].flat().join(','), 'rct,meta-analysis');
      assert.equal(q.controlled, 'false');
      assert.equal(q.publisher_name, 'Elsevier,Springer Nature');
      assert.equal(q.country, 'US,GB');
    });

    test('the description names the active filters; Clear Filters empties them and the next search sends none', async () => {
      const label = await freshKey('pro');
      const core = await testCore();
      await run(Commands.editFilters, { year_min: 2021, sjr_max: 1, human: true });
      assert.equal(core.filters.describe(), '2021+ · human · ≤Q1');
      const cleared = await run<FilterCommandResult>(Commands.clearFilters);
      assert.deepEqual(cleared, { ok: true, filters: {} });
      assert.equal(core.filters.describe(), '');
      await run(Commands.searchPapers, 'sleep and memory');
      assert.deepEqual(received((await searchesOf(label))[0]), [['query', 'sleep and memory']]);
    });

    test('invalid filters are refused with the rule they break, the old filters stay, nothing is sent', async () => {
      const label = await freshKey('pro');
      const core = await testCore();
      await run(Commands.editFilters, { citation_min: 3 });
      const cases: [SearchFilters | Record<string, unknown>, RegExp][] = [
        [{ sjr_min: 0 }, /sjr_min: Input should be greater than or equal to 1/],
        [{ year_min: 2024, year_max: 2019 }, /year_min must not exceed year_max/],
        [{ month_min: 4 }, /month_min requires year_min/],
        [{ country: ['USA'] }, /ISO 3166-1 alpha-2/],
        [{ domain: ['medicine'] }, /Unknown domain code/],
        [{ study_type: ['rct'] }, /study_type: Unknown parameter/],
      ];
      for (const [bad, why] of cases) {
        const res = await run<FilterCommandResult>(Commands.editFilters, bad);
        assert.equal(res?.ok, false, JSON.stringify(bad));
        assert.match(res.ok ? '' : res.message, why);
        assert.deepEqual(core.filters.current, { citation_min: 3 }, 'the old filters were lost');
      }
      await assert.rejects(core.filters.set({ sjr_max: 7 }), /sjr_max/);
      assert.equal((await searchesOf(label)).length, 0, 'a request was sent');
    });

    test('the multi-step editor, driven like a person: a range typed (bad, then good), a yes/no step, Back, Apply', async () => {
      const label = await freshKey('pro');
      const core = await testCore();
      // No search on show: Apply then stores the filters and runs nothing (the next test has one on show).
      await run(Commands.clearResults);
      await core.filters.clear();
      const editor = core.filterCommands.editor;
      const pending = run<FilterCommandResult>(Commands.editFilters);
      await eventually(() => editor.active !== undefined, 'the editor to open');
      const step1 = asPick(editor.active);
      assert.equal(step1.step, 1);
      assert.equal(step1.totalSteps, 2);
      const rowLabels = step1.items.map((i) => i.field?.id).filter(Boolean);
      assert.equal(rowLabels.length, 19, 'a row per filter (ranges as one row)');

      // Publication years: type a reversed range (refused with the rule), then a good one.
      step1.activeItems = step1.items.filter((i) => i.field?.id === 'years');
      await sleep(300); // let the window receive the highlighted item before Enter
      await accept(() => editor.active !== undefined && editor.active !== step1, 'step 1 → years');
      const years = editor.active as vscode.InputBox;
      assert.equal(years.step, 2);
      years.value = '2024-2019';
      await sleep(100);
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await eventually(() => years.validationMessage !== undefined, 'a validation message');
      const msg = years.validationMessage;
      // In the writer's words, not the service's field names.
      assert.match(
        typeof msg === 'string' ? msg : (msg?.message ?? ''),
        /The first year must not exceed the last year/,
      );
      assert.equal(editor.active, years, 'a bad range was accepted');
      years.value = '2019-2024';
      await accept(() => editor.active !== undefined && editor.active !== years, 'years → step 1');

      // Human studies: pick "Yes".
      const step1b = asPick(editor.active);
      assert.equal(step1b.items.find((i) => i.field?.id === 'years')?.description, '2019–2024');
      step1b.activeItems = step1b.items.filter((i) => i.field?.id === 'human');
      await sleep(300); // let the window receive the highlighted item before Enter
      await accept(() => editor.active !== undefined && editor.active !== step1b, 'step 1 → human');
      const human = asPick(editor.active);
      human.activeItems = human.items.filter((i) => i.value === true);
      await sleep(300); // let the window receive the highlighted item before Enter
      await accept(() => editor.active !== undefined && editor.active !== human, 'human → step 1');

      // Sample size: open it, then Back (nothing changes).
      const step1c = asPick(editor.active);
      step1c.activeItems = step1c.items.filter((i) => i.field?.id === 'sample_size_min');
      await sleep(300); // let the window receive the highlighted item before Enter
      await accept(() => editor.active !== undefined && editor.active !== step1c, 'step 1 → sample size');
      const size = editor.active;
      size.value = '50';
      await vscode.commands.executeCommand('workbench.action.quickInputBack');
      await eventually(() => editor.active !== size && editor.active !== undefined, 'Back to step 1');

      const step1d = asPick(editor.active);
      assert.equal(step1d.items.find((i) => i.field?.id === 'sample_size_min')?.description, 'any');
      assert.equal(core.filters.describe(), '', 'stored before Apply');
      step1d.activeItems = step1d.items.filter((i) => i.action === 'apply');
      await sleep(300); // let the window receive the highlighted item before Enter
      await accept(() => editor.active !== step1d, 'Apply');
      const res = await pending;
      assert.deepEqual(res, { ok: true, filters: { year_min: 2019, year_max: 2024, human: true } });
      assert.deepEqual(core.filters.current, { year_min: 2019, year_max: 2024, human: true });

      await run(Commands.searchPapers, 'creatine and cognition');
      assert.deepEqual(
        received((await searchesOf(label))[0]),
        expected('creatine and cognition', { year_min: 2019, year_max: 2024, human: true }),
      );
    });

    test('Apply runs the search on show again under the new filters (its row says the cost); Escape with changes asks first', async () => {
      const label = await freshKey('pro');
      const core = await testCore();
      await core.filters.clear();
      await run(Commands.searchPapers, 'omega-3 and depression');
      assert.equal((await searchesOf(label)).length, 1);
      const editor = core.filterCommands.editor;

      // Escape after a change: asked; Keep Editing returns to the editor with the change; a second Escape discards.
      let pending = run<FilterCommandResult>(Commands.editFilters);
      await eventually(() => editor.active !== undefined, 'the editor to open');
      const step1 = asPick(editor.active);
      step1.activeItems = step1.items.filter((i) => i.field?.id === 'human');
      await sleep(300);
      await accept(() => editor.active !== undefined && editor.active !== step1, 'step 1 → human');
      const human = asPick(editor.active);
      human.activeItems = human.items.filter((i) => i.value === true);
      await sleep(300);
      await accept(() => editor.active !== undefined && editor.active !== human, 'human → step 1');
      const withChange = editor.active;
      withChange?.hide();
      await eventually(() => editor.active !== undefined && editor.active !== withChange, 'the discard question');
      const ask = asPick(editor.active);
      assert.match(ask.title ?? '', /not applied/);
      ask.activeItems = ask.items.filter((i) => /Keep Editing/.test(i.label));
      await sleep(300);
      await accept(() => editor.active !== undefined && editor.active !== ask, 'Keep Editing → step 1');
      const back = asPick(editor.active);
      assert.equal(back.items.find((i) => i.field?.id === 'human')?.description, 'yes', 'the change was kept');
      // The Apply row says the search runs again, and what that costs.
      const applyRow = back.items.find((i) => i.action === 'apply');
      assert.match(applyRow?.detail ?? '', /search “omega-3 and depression” again/);
      assert.match(applyRow?.detail ?? '', /one call/);
      back.hide();
      await eventually(() => editor.active !== undefined && editor.active !== back, 'the discard question again');
      editor.active?.hide();
      assert.equal(await pending, undefined, 'discarded');
      assert.deepEqual(core.filters.current, {});
      assert.equal((await searchesOf(label)).length, 1, 'nothing sent');

      // Apply: stored and searched again.
      pending = run<FilterCommandResult>(Commands.editFilters);
      await eventually(() => editor.active !== undefined, 'the editor to open');
      const s1 = asPick(editor.active);
      s1.activeItems = s1.items.filter((i) => i.field?.id === 'human');
      await sleep(300);
      await accept(() => editor.active !== undefined && editor.active !== s1, 'step 1 → human');
      const h = asPick(editor.active);
      h.activeItems = h.items.filter((i) => i.value === true);
      await sleep(300);
      await accept(() => editor.active !== undefined && editor.active !== h, 'human → step 1');
      const s2 = asPick(editor.active);
      s2.activeItems = s2.items.filter((i) => i.action === 'apply');
      await sleep(300);
      await accept(() => editor.active !== s2, 'Apply');
      assert.deepEqual(await pending, { ok: true, filters: { human: true } });
      const sent = await searchesOf(label);
      assert.equal(sent.length, 2, 'the search ran again');
      assert.deepEqual(received(sent[1]), expected('omega-3 and depression', { human: true }));
      assert.doesNotMatch((await api()).results.treeView?.description ?? '', /Refresh to apply/);
      await core.filters.clear();
    });

    test('multi-select steps: domains by readable name and countries by ISO code reach the service comma-separated', async () => {
      const label = await freshKey('pro');
      const core = await testCore();
      await core.filters.clear();
      const editor = core.filterCommands.editor;
      const pending = run<FilterCommandResult>(Commands.editFilters);
      for (const [row, values] of [
        ['domain', ['med', 'psych']],
        ['country', ['DE', 'JP']],
      ] as const) {
        await eventually(() => editor.active !== undefined && asPick(editor.active).step === 1, 'step 1');
        const list = asPick(editor.active);
        list.activeItems = list.items.filter((i) => i.field?.id === row);
        await sleep(300); // let the window receive the highlighted item before Enter
        await accept(() => editor.active !== undefined && editor.active !== list, `step 1 → ${row}`);
        const multi = asPick(editor.active);
        assert.equal(multi.canSelectMany, true);
        if (row === 'domain') assert.ok(multi.items.some((i) => i.label === 'Medicine' && i.description === 'med'));
        else assert.ok(multi.items.some((i) => i.label === 'Japan' && i.description === 'JP'));
        multi.selectedItems = multi.items.filter((i) => (values as readonly unknown[]).includes(i.value));
        await sleep(300);
        await accept(() => editor.active !== undefined && editor.active !== multi, `${row} → step 1`);
      }
      const last = asPick(editor.active);
      assert.equal(last.items.find((i) => i.field?.id === 'domain')?.description, 'Medicine, Psychology');
      last.activeItems = last.items.filter((i) => i.action === 'apply');
      await sleep(300);
      await accept(() => editor.active !== last, 'Apply');
      assert.deepEqual(await pending, { ok: true, filters: { domain: ['med', 'psych'], country: ['DE', 'JP'] } });
      await run(Commands.searchPapers, 'urban heat and mortality');
      const q = (await searchesOf(label))[0]?.query;
      assert.equal(q?.domain, 'med,psych');
      assert.equal(q?.country, 'DE,JP');
      await core.filters.clear();
    });

    test('presets: a shipped one applies with "last 5 years" computed now; a malformed one is reported by name and changes nothing', async () => {
      const label = await freshKey('pro');
      const core = await testCore();
      const res = await run<FilterCommandResult>(
        Commands.applyFilterPreset,
        'RCTs and meta-analyses, last 5 years, Q1',
      );
      assert.ok(res?.ok, res && !res.ok ? res.message : '');
      const year = new Date().getUTCFullYear();
      assert.deepEqual(core.filters.current, { study_types: ['rct', 'meta-analysis'], year_min: year - 5, sjr_max: 1 });
      await run(Commands.searchPapers, 'statins and dementia');
      assert.deepEqual(received((await searchesOf(label))[0]), expected('statins and dementia', core.filters.current));

      const restorePresets = await setUserSettings({
        [Settings.searchPresets]: [
          { name: 'Good', filters: { open_access: true } },
          { name: 'Broken', filters: { sjr_max: 9, lastYears: 'five' } },
          'not an object',
        ],
      });
      try {
        const before = core.filters.current;
        const bad = await run<FilterCommandResult>(Commands.applyFilterPreset, 'Broken');
        assert.equal(bad?.ok, false);
        assert.match(bad.ok ? '' : bad.message, /Preset "Broken": lastYears must be a whole number/);
        assert.deepEqual(core.filters.current, before);
        const missing = await run<FilterCommandResult>(Commands.applyFilterPreset, 'Nope');
        assert.match(
          missing?.ok === false ? missing.message : '',
          /No filter preset is named "Nope". Presets: Good, Broken, Preset 3/,
        );
        const entries = core.filters.presets();
        assert.match(entries[2]?.problem ?? '', /Preset 3 must be an object/);
        const good = await run<FilterCommandResult>(Commands.applyFilterPreset, 'Good');
        assert.deepEqual(good, { ok: true, filters: { open_access: true } });
      } finally {
        await restorePresets();
      }
    });

    test('the default filter set applies in a workspace whose filters were never edited; a bad default set is reported, not applied', async () => {
      const core = await testCore();
      const desk = await api();
      const restoreDefaults = await setUserSettings({
        [Settings.searchDefaultFilters]: { lastYears: 3, exclude_preprints: true },
      });
      try {
        // A fresh store over empty workspace state, as in a workspace never edited.
        const empty = new Map<string, unknown>();
        const memento: vscode.Memento = {
          keys: () => [...empty.keys()],
          get: <T>(k: string, d?: T) => (empty.has(k) ? (empty.get(k) as T) : d),
          update: (k: string, v: unknown) => Promise.resolve(void empty.set(k, v)),
        };
        const store = new FilterStore({ state: memento });
        assert.deepEqual(store.current, { year_min: new Date().getUTCFullYear() - 3, exclude_preprints: true });
        await store.clear();
        assert.deepEqual(new FilterStore({ state: memento }).current, {}, 'a cleared workspace got the defaults back');
        store.dispose();
        await setUserSettings({ [Settings.searchDefaultFilters]: { sjr_min: 5 } });
        const bad = new FilterStore({ state: { ...memento, get: <T>(_k: string, d?: T) => d as T } });
        assert.deepEqual(bad.current, {});
        assert.match(
          bad.defaultsProblem ?? '',
          /researchDesk\.search\.defaultFilters: sjr_min: Input should be less than or equal to 4/,
        );
        bad.dispose();
        // The extension's own store keeps what this workspace set.
        assert.ok(core.filters.current);
        assert.ok(desk);
      } finally {
        await restoreDefaults();
      }
    });

    test('a free plan never asks for excerpts: the option is locked in the editor, left out of the search', async () => {
      const label = await freshKey('free');
      const core = await testCore();
      const restorePlan = await setUserSettings({ [Settings.plan]: 'free' });
      try {
        await run(Commands.editFilters, { include_full_text_chunks: true, open_access: true });
        assert.deepEqual(core.filters.current, { open_access: true });
        const editor = core.filterCommands.editor;
        const pending = run(Commands.editFilters);
        await eventually(() => editor.active !== undefined, 'the editor to open');
        const row = asPick(editor.active).items.find((i) => i.field?.id === 'include_full_text_chunks');
        assert.equal(row?.detail, 'Excerpts need a paid plan; the free plan would answer 403');
        editor.active?.hide();
        assert.equal(await pending, undefined);
        await run(Commands.searchPapers, 'vitamin d and depression');
        const sent = await searchesOf(label);
        assert.equal(sent.length, 1);
        assert.equal(sent[0]!.query.include_full_text_chunks, undefined);
        assert.equal(sent[0]!.status, 200);
      } finally {
        await restorePlan();
        await core.filters.clear();
      }
    });
  });
}
