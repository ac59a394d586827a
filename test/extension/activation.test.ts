import * as assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import * as vscode from 'vscode';
import { Commands, Settings } from '../../src/platform/ids';
import type { SearchOutcome } from '../../src/search/searchSession';
import {
  acceptQuickInput,
  api,
  eventually,
  extension,
  provisionedKey,
  requestsOf,
  setUserSettings,
  testCore,
  useEmulatorKeepingKey,
} from './support';

/** Registered first: it checks what activation loaded before any command ran. */
export function activationSuite(): void {
  suite('Activation', () => {
    test('activation time in a settled window (measured only with RESEARCH_DESK_MEASURE_ACTIVATION=1)', async function () {
      if (process.env.RESEARCH_DESK_MEASURE_ACTIVATION !== '1' || extension().isActive) this.skip();
      this.timeout(60_000);
      // During workbench start even an empty activate() waits ~100 ms; measure once settled.
      await new Promise((r) => setTimeout(r, 5000));
      const started = performance.now();
      await extension().activate();
      const ms = performance.now() - started;
      const desk = await api();
      assert.equal(desk.isCoreLoaded(), false);
      console.log(
        `[research-desk] settled activation: activate() resolved in ${ms.toFixed(1)} ms (synchronous part ${desk.activationMs.toFixed(1)} ms: ${JSON.stringify(desk.activationSteps, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v))}).`,
      );
    });

    test('activation loads neither the core bundle nor the client and its dependencies', async () => {
      const desk = await api();
      assert.equal(desk.isCoreLoaded(), false, 'dist/core.js was loaded during activation');
      // Only this extension's files count (VS Code itself loads its own copy of undici).
      const root = extension().extensionPath;
      const heavy = Object.keys(require.cache).filter(
        (f) =>
          f === join(root, 'dist', 'core.js') ||
          /^node_modules[\\/](undici|zod|markdown-it)[\\/]/.test(relative(root, f)),
      );
      assert.deepEqual(heavy, [], 'heavy modules were required at activation');
      // Visible in the test log, for the record (figures belong to the benchmark, not asserted here).
      console.log(
        `[research-desk] activate() took ${desk.activationMs.toFixed(1)} ms (synchronous part, during window start).`,
      );
    });

    test('activate() exports the test API outside production and the extension is active', async () => {
      const desk = await api();
      assert.equal(extension().isActive, true);
      assert.equal(typeof desk.keys.get, 'function');
      assert.ok(desk.registeredCommands.length > 0);
    });

    test('without RESEARCH_DESK_DEMO_KEY the demo hand-off does nothing', async function () {
      if (process.env.RESEARCH_DESK_DEMO_KEY) this.skip(); // the demo runner sets it on purpose
      const desk = await api();
      assert.equal(await desk.demoKey, 'absent');
    });

    // Last of the suite: it loads the core.
    test('Search Papers as the first command: the entry bundle shows its Quick Pick, the core loads behind it and names the filters in the title, and the query typed is searched with them', async function () {
      this.timeout(30_000);
      const desk = await api();
      assert.equal(desk.isCoreLoaded(), false, 'a command before this test loaded the core');
      const emulator = await useEmulatorKeepingKey();
      const restoreFilters = await setUserSettings({ [Settings.searchDefaultFilters]: { year_min: 2019 } });
      try {
        const { label } = await provisionedKey('first-command');
        const pending = vscode.commands.executeCommand<SearchOutcome>(Commands.searchPapers);
        await eventually(() => desk.entrySearchPick() !== undefined, 'the entry bundle shows the Quick Pick');
        const asked = desk.entrySearchPick()!;
        await eventually(() => desk.isCoreLoaded(), 'the core loads behind the Quick Pick');
        await eventually(() => /filters: 2019\+/.test(asked.pick.title ?? ''), `the title names the filters`);
        asked.pick.value = 'sleep and memory';
        await eventually(() => asked.pick.items[0]?.query === 'sleep and memory', 'the typed query is offered');
        const out = await acceptQuickInput(pending);
        assert.equal(out?.outcome, 'shown', out?.message);
        assert.equal(out.query, 'sleep and memory');
        const searches = await requestsOf(label, 'search');
        assert.equal(searches.length, 1);
        assert.equal(searches[0]!.query.query, 'sleep and memory');
        assert.equal(searches[0]!.query.year_min, '2019');
      } finally {
        await (await testCore()).filters.clear();
        await vscode.commands.executeCommand(Commands.clearResults);
        await restoreFilters();
        await emulator.restore();
      }
    });
  });
}
