/**
 * The monthly calls in the real VS Code against the emulator: the ledger and the status-bar
 * item count exactly what the emulator charged, a monthly 429 shows 0 with the reset date on a
 * warning background, a 402 shows billing past due, the month rolls over, the menu corrects
 * the count.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CoreInternals } from '../../src/composition/core';
import { Commands, Settings } from '../../src/platform/ids';
import type { SearchOutcome } from '../../src/search/searchSession';
import { ApiError } from '../../src/api/index';
import { UsageStatusBar } from '../../src/usage/statusBar';
import { restoreUsageStatusItem } from '../../src/usage/statusCache';
import { UsageLedger, type UsageRecord } from '../../src/usage/usageLedger';
import { api, control, eventually, setUserSettings, sleep, testCore, useEmulatorSettings } from './support';
import { freshKey } from './filters.test';

interface EmuCharge {
  keyLabel: string;
  calls: number;
  reason: string;
}

const BIG = 'effect of formative feedback on mathematics performance in secondary school students';
const run = <T>(id: string, ...args: unknown[]): Thenable<T | undefined> =>
  vscode.commands.executeCommand<T>(id, ...args);

async function charged(label: string): Promise<number> {
  return (await control<EmuCharge[]>('charges')).filter((c) => c.keyLabel === label).reduce((s, c) => s + c.calls, 0);
}

const tooltipText = (item: vscode.StatusBarItem): string => {
  const t = item.tooltip;
  return typeof t === 'string' ? t : (t?.value ?? '');
};
const bg = (item: vscode.StatusBarItem): string | undefined =>
  item.backgroundColor instanceof vscode.ThemeColor ? item.backgroundColor.id : undefined;

/** An in-memory Memento (what globalState is), for ledgers with a fake clock. */
function memento(): vscode.Memento & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    keys: () => [...data.keys()],
    get: <T>(k: string, d?: T) => (data.has(k) ? (data.get(k) as T) : d),
    update: (k: string, v: unknown) => Promise.resolve(void data.set(k, v)),
  };
}

export function usageSuite(): void {
  suite('Monthly calls: ledger and status bar (real VS Code against the emulator)', () => {
    let restore: (() => Promise<void>) | undefined;
    let savedKey: string | undefined;
    let origin = '';
    let core: CoreInternals;

    suiteSetup(async () => {
      const desk = await api();
      const s = await useEmulatorSettings();
      origin = new URL(s.url).origin;
      savedKey = await desk.keys.get(origin);
      const restoreSettings = await setUserSettings({ [Settings.plan]: 'pro', [Settings.searchCacheMinutes]: 30 });
      restore = async () => {
        await restoreSettings();
        await s.restore();
      };
      core = await testCore();
      await core.filters.clear();
    });

    suiteTeardown(async () => {
      await run(Commands.clearResults);
      const desk = await api();
      if (savedKey) await desk.keys.set(savedKey, origin);
      else await desk.keys.delete(origin);
      await restore?.();
    });

    test('the status bar counts exactly the calls the emulator charged over a series of searches (cache and buffer cost nothing)', async () => {
      const label = await freshKey('pro');
      core.usage.correct(0);
      await eventually(
        () => core.usageStatus.item.text === '$(pulse) 500 / 500',
        `"500 / 500", got ${core.usageStatus.item.text}`,
      );
      const series: [string, ...unknown[]][] = [
        [Commands.searchPapers, BIG],
        [Commands.loadMore],
        [Commands.loadMore],
        [Commands.loadMore],
        [Commands.loadMore],
        [Commands.loadMore], // past the first 100: a second request
        [Commands.searchPapers, 'zzzzqqq xxyyzz'], // nothing found: still 1 call
        [Commands.searchPapers, BIG], // cached: 0 calls
        [Commands.refreshResults], // asks the service again
        [Commands.searchPapers, { query: 'sleep and memory', filters: { open_access: true } }],
      ];
      for (const [id, ...args] of series) {
        const out = await run<SearchOutcome>(id, ...args);
        assert.ok(!out || out.outcome !== 'error', `${id}: ${out?.message}`);
      }
      const emulator = await charged(label);
      assert.ok(emulator >= 5, `the series should have cost several calls, emulator charged ${emulator}`);
      assert.equal(core.usage.spent, emulator);
      const usage = await control<{ used: number; included: number; resetsOn: string }>(
        'getUsage',
        (await (await api()).keys.get(origin))!,
      );
      assert.equal(usage.used, emulator);
      assert.equal(core.usageStatus.item.text, `$(pulse) ${500 - emulator} / 500`);
      const tip = tooltipText(core.usageStatus.item);
      assert.match(tip, /Plan: Pro/);
      assert.match(tip, new RegExp(`Calls this machine spent this month: ${emulator}`));
      assert.ok(tip.includes(`Resets on: ${usage.resetsOn}`), `reset date ${usage.resetsOn} in ${tip}`);
      assert.match(tip, /shared with the MCP server and your other machines/);
      assert.match(tip, /thread \(agent\) costs are not known exactly/);
      const md = core.usageStatus.item.tooltip as vscode.MarkdownString;
      assert.equal(md.isTrusted, false);
      assert.equal(md.supportHtml, false);
      assert.equal(bg(core.usageStatus.item), undefined);
    });

    test('a monthly 429 sets 0 left with the reset date on a warning background; an answered call clears it', async () => {
      await freshKey('pro', { used: 500 });
      const out = await run<SearchOutcome>(Commands.searchPapers, 'creatine supplementation and memory');
      assert.equal(out?.errorKind, 'quota_exhausted', out?.message);
      const key = (await (await api()).keys.get(origin))!;
      const { resetsOn } = await control<{ resetsOn: string }>('getUsage', key);
      assert.equal(core.usageStatus.item.text, '$(pulse) 0 / 500');
      assert.equal(bg(core.usageStatus.item), 'statusBarItem.warningBackground');
      assert.ok(
        tooltipText(core.usageStatus.item).includes(`they reset on ${resetsOn}`),
        tooltipText(core.usageStatus.item),
      );
      assert.equal(core.usage.snapshot().resetDate, resetsOn);

      await freshKey('pro');
      await run(Commands.searchPapers, 'omega 3 and depression');
      assert.equal(bg(core.usageStatus.item), undefined);
      assert.notEqual(core.usageStatus.item.text, '$(pulse) 0 / 500');
    });

    test('a 402 shows billing past due on an error background', async () => {
      await freshKey('pro', { status: 'pastDue' });
      const out = await run<SearchOutcome>(Commands.searchPapers, 'green tea and weight loss');
      assert.equal(out?.errorKind, 'payment_required', out?.message);
      assert.equal(core.usageStatus.item.text, '$(error) Billing past due');
      assert.equal(bg(core.usageStatus.item), 'statusBarItem.errorBackground');
      assert.match(tooltipText(core.usageStatus.item), /Billing is past due/);
      await freshKey('pro');
      await run(Commands.searchPapers, 'green tea and weight loss');
      assert.equal(bg(core.usageStatus.item), undefined);
    });

    test('the plan: from the setting, else inferred from the page size a free key is capped to', async () => {
      const restorePlan = await setUserSettings({ [Settings.plan]: 'auto' });
      try {
        await freshKey('free');
        core.usage.correct(0);
        const state = await testCore();
        assert.equal(state.usage, core.usage);
        // Forget an earlier inference for this origin by recording an uncapped answer larger than any cap.
        core.usage.recordSearch({ resultCount: 0, requestedPageSize: 100, appliedPageSize: 100 });
        core.usage.correct(0);
        await run(Commands.searchPapers, 'mindfulness and anxiety');
        const s = core.usage.snapshot();
        assert.equal(s.plan, 'free');
        assert.equal(s.planSource, 'inferred');
        assert.equal(core.usageStatus.item.text, `$(pulse) ${30 - s.spent} / 30`);
        assert.match(tooltipText(core.usageStatus.item), /Free \(inferred from the page size the service applied\)/);
      } finally {
        await restorePlan();
      }
      assert.equal(core.usage.snapshot().plan, 'pro');
    });

    test('a paid key: the first search shows the calls left, without a setting (study types and takeaways are paid-plan fields)', async () => {
      const restorePlan = await setUserSettings({ [Settings.plan]: 'auto' });
      try {
        await freshKey('pro');
        // Forget an earlier inference for this origin (a free key's cap).
        core.usage.recordSearch({ resultCount: 0, requestedPageSize: 100, appliedPageSize: 100 });
        core.usage.correct(0);
        const pre = core.usage.snapshot();
        assert.notEqual(pre.planSource, 'setting');
        await run(Commands.searchPapers, 'sleep deprivation and working memory');
        const s = core.usage.snapshot();
        assert.equal(s.planSource, 'inferred');
        assert.equal(s.inferredFrom, 'fields');
        assert.equal(s.included, 500);
        assert.equal(core.usageStatus.item.text, `$(pulse) ${500 - s.spent} / 500`);
        assert.match(tooltipText(core.usageStatus.item), /a paid plan: Pro, Teams or Enterprise/);
        // A free key's capped page then wins: the free plan it shows is certain.
        await freshKey('free');
        await run(Commands.searchPapers, 'sleep deprivation and reaction time');
        assert.equal(core.usage.snapshot().plan, 'free');
      } finally {
        await restorePlan();
      }
    });

    test('month rollover: a new month starts from 0 (fake clock), the reset date moves on', () => {
      let now = new Date('2026-03-31T23:59:00Z');
      const state = memento();
      const ledger = new UsageLedger({ state, origin: () => 'https://example.test', now: () => now });
      const bar = new UsageStatusBar(ledger, Commands.showUsage);
      try {
        ledger.recordSearch({ resultCount: 150, requestedPageSize: 200, appliedPageSize: 150 });
        ledger.recordSearch({ resultCount: 20, requestedPageSize: 20, appliedPageSize: 20 });
        assert.equal(ledger.spent, 3);
        assert.equal(ledger.snapshot().resetDate, '2026-04-01');
        assert.equal(bar.item.text, '$(pulse) 497 / 500');
        const stored = state.data.get('researchDesk.usage/https://example.test') as UsageRecord;
        assert.equal(stored.month, '2026-03');
        now = new Date('2026-04-01T00:00:01Z');
        assert.equal(ledger.spent, 0);
        assert.equal(ledger.snapshot().resetDate, '2026-05-01');
        bar.update(); // what the ledger's month-end timer triggers
        assert.equal(bar.item.text, '$(pulse) 500 / 500');
        ledger.recordSearch({ resultCount: 101, requestedPageSize: 200, appliedPageSize: 200 });
        assert.equal(ledger.spent, 2);
        assert.equal((state.data.get('researchDesk.usage/https://example.test') as UsageRecord).month, '2026-04');
      } finally {
        bar.dispose();
        ledger.dispose();
      }
    });

    test('the item is restored at start from the one cached value the core wrote (same figure and background; a new month shows the reset figure)', () => {
      const state = memento();
      const ledger = new UsageLedger({ state, origin: () => 'https://example.test', now: () => new Date() });
      const bar = new UsageStatusBar(ledger, Commands.showUsage, undefined, state);
      let restored: vscode.StatusBarItem | undefined;
      try {
        ledger.recordSearch({ resultCount: 250, requestedPageSize: 300, appliedPageSize: 250 });
        ledger.recordError(new ApiError('quota_exhausted', 'used up', { status: 429, resetDate: '2099-01-01' }));
        assert.equal(bar.item.text, '$(pulse) 0 / 500');
        assert.equal(
          restoreUsageStatusItem(state, 'https://other.test', Commands.showUsage),
          undefined,
          'another service got this figure',
        );
        restored = restoreUsageStatusItem(state, 'https://example.test', Commands.showUsage);
        assert.ok(restored);
        assert.equal(restored.text, bar.item.text);
        assert.equal(bg(restored), 'statusBarItem.warningBackground');
        assert.equal(tooltipText(restored), tooltipText(bar.item));
        assert.equal(restored.command, Commands.showUsage);
        restored.dispose();
        const nextMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 2));
        restored = restoreUsageStatusItem(state, 'https://example.test', Commands.showUsage, nextMonth);
        assert.equal(restored?.text, '$(pulse) 500 / 500');
        assert.equal(restored && bg(restored), undefined);
        // The core takes the restored item over instead of adding a second one.
        const takeover = new UsageStatusBar(ledger, Commands.showUsage, restored, state);
        assert.equal(takeover.item, restored);
        assert.equal(restored?.text, '$(pulse) 0 / 500');
        takeover.dispose();
        restored = undefined;
      } finally {
        restored?.dispose();
        bar.dispose();
        ledger.dispose();
      }
    });

    test('the menu: Correct the count through its input box (a bad number refused), Set Plan with an argument', async () => {
      const menu = core.usageMenu;
      const pending = run<number>(Commands.correctUsageCount);
      await eventually(() => menu.active !== undefined, 'the input box');
      const box = menu.active!;
      box.value = 'twelve';
      await sleep(100);
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await eventually(() => box.validationMessage !== undefined, 'a validation message');
      const why = box.validationMessage;
      assert.match(typeof why === 'string' ? why : (why?.message ?? ''), /whole number of calls/);
      box.value = '412';
      for (let i = 0; i < 50 && menu.active; i++) {
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        await sleep(100);
      }
      assert.equal(await pending, 412);
      assert.equal(core.usage.spent, 412);
      assert.equal(core.usageStatus.item.text, '$(pulse) 88 / 500');
      assert.equal(await run(Commands.correctUsageCount, -3), undefined);
      assert.equal(core.usage.spent, 412, 'a negative count was stored');

      assert.equal(await run(Commands.setPlan, 'deep'), 'deep');
      await eventually(
        () => core.usageStatus.item.text === '$(pulse) 1588 / 2000',
        `deep plan figure, got ${core.usageStatus.item.text}`,
      );
      assert.equal(await run(Commands.setPlan, 'platinum'), undefined);
      assert.equal(vscode.workspace.getConfiguration().get(Settings.plan), 'deep');
      await run(Commands.setPlan, 'pro');
      core.usage.correct(0);
    });
  });
}
