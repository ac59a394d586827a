/**
 * Paid calls are the writer's money, in the real VS Code against the emulator, counting what the emulator saw:
 * a billable action clicked twice runs once; a repository's .vscode/settings.json cannot change what is spent
 * (trusted and Restricted Mode); a request that may have been charged is not retried behind the writer's back.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CoreInternals } from '../../src/composition/core';
import type { AskOutcome } from '../../src/threads/threadCommands';
import { Commands, Settings } from '../../src/platform/ids';
import type { SearchOutcome } from '../../src/search/searchSession';
import type { ResultNode } from '../../src/search/resultsTree';
import {
  activeSyntax,
  api,
  chargedTo,
  control,
  eventually,
  finishedThread,
  observeSinks,
  provisionedKey,
  readDisk,
  requestsOf,
  sleep,
  testCore,
  useEmulatorKeepingKey,
  writeFile,
} from './support';

interface EmuThread {
  threadId: string;
  interactions: number;
}

const run = <T>(id: string, ...args: unknown[]): Thenable<T | undefined> =>
  vscode.commands.executeCommand<T>(id, ...args);

/**
 * Clicks twice: the second click comes while the first request is still at the service (the emulator holds the
 * first request of `route` for 1.5 s; 300 ms is ample for it to get there).
 */
async function twice<T>(route: string, click: () => Thenable<T>): Promise<[T, T]> {
  await control('injectFault', { route, kind: 'delay', delayMs: 1500 });
  const first = Promise.resolve(click());
  await sleep(300);
  const second = Promise.resolve(click());
  return Promise.all([first, second]);
}

/** Lets every run this test started finish, so no watcher polls into the next test. */
async function settle(c: CoreInternals): Promise<void> {
  await control('completeRuns');
  await eventually(() => c.threadWatcher.running().length === 0, 'the runs ended', 400);
}

async function paperNodes(): Promise<Extract<ResultNode, { kind: 'paper' }>[]> {
  return (await api()).results
    .getChildren()
    .filter((n): n is Extract<ResultNode, { kind: 'paper' }> => n.kind === 'paper');
}

export function moneySuite(): void {
  suite('Money: a billable action clicked twice runs once', () => {
    let restore: (() => Promise<void>) | undefined;
    suiteSetup(async () => {
      restore = (await useEmulatorKeepingKey()).restore;
    });
    teardown(async () => {
      await control('clearFaults');
      await control('clearRunOutcomes');
    });
    suiteTeardown(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await restore?.();
    });

    test('Send to the Research Agent clicked twice on one brief: one thread, the same outcome twice, no other editor touched', async () => {
      const { label, key } = await provisionedKey('double-brief');
      const c = await testCore();
      await c.threads.drafts.clear('new');
      const mine = await vscode.workspace.openTextDocument({ language: 'markdown', content: 'My unsaved chapter.' });
      await vscode.window.showTextDocument(mine, { preview: false });
      const opened = await run<AskOutcome>(Commands.askAgent);
      assert.equal(opened?.outcome, 'opened');
      const editor = vscode.window.activeTextEditor!;
      await editor.edit((b) =>
        b.insert(
          editor.document.lineAt(editor.document.lineCount - 1).range.end,
          'Does creatine improve memory in older adults?',
        ),
      );
      const [a, b] = await twice('create_thread', () =>
        run<AskOutcome>(Commands.sendBrief, { uri: opened.uri, mode: 'pro' }),
      );
      assert.equal((await requestsOf(label, 'create_thread')).length, 1, 'two threads were created');
      assert.equal((await control<EmuThread[]>('threads', key)).length, 1);
      assert.equal(a?.outcome, 'sent', a?.message);
      assert.equal(b?.threadId, a.threadId, "the second click did not get the first one's thread");
      assert.equal(mine.isClosed, false, "the writer's document was closed");
      assert.equal(mine.getText(), 'My unsaved chapter.');
      // Closed without a save prompt (VS Code refuses dialogs under test).
      await vscode.window.showTextDocument(mine);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await settle(c);
    });

    test('Ask the Research Agent, about the Selection and about Papers, each clicked twice: one thread each', async () => {
      const { label } = await provisionedKey('double-ask');
      const c = await testCore();
      const [a1, a2] = await twice('create_thread', () =>
        run<AskOutcome>(Commands.askAgent, { message: 'Does caffeine improve reaction time?' }),
      );
      assert.equal(a2?.threadId, a1?.threadId);
      const doc = await vscode.workspace.openTextDocument({
        language: 'markdown',
        content: 'Sleep deprivation impairs working memory.',
      });
      const editor = await vscode.window.showTextDocument(doc);
      editor.selection = new vscode.Selection(0, 0, 0, doc.lineAt(0).text.length);
      const [s1, s2] = await twice('create_thread', () =>
        run<AskOutcome>(Commands.askAboutSelection, { instructions: 'Find trials.' }),
      );
      assert.equal(s2?.threadId, s1?.threadId);
      const [p1, p2] = await twice('create_thread', () =>
        run<AskOutcome>(Commands.askAboutPapers, { attachPapers: ['p1', 'p2'], message: 'Compare these two.' }),
      );
      assert.equal(p2?.threadId, p1?.threadId);
      for (const o of [a1, s1, p1]) assert.equal(o?.outcome, 'sent', o?.message);
      assert.equal((await requestsOf(label, 'create_thread')).length, 3);
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await settle(c);
    });

    test('a follow-up sent twice from the answer view: one interaction, no 409', async () => {
      const { label, key } = await provisionedKey('double-follow');
      const c = await testCore();
      const id = await finishedThread(key, 'Does exercise improve sleep quality?');
      await c.answers.show(id);
      await twice('add_interaction', () =>
        c.answers.receive(id, { type: 'followUp', text: 'And in older adults?', mode: 'pro' }),
      );
      const posts = await requestsOf(label, 'add_interaction');
      assert.deepEqual(
        posts.map((r) => r.status),
        [200],
        'sent twice (or a 409)',
      );
      assert.equal((await control<EmuThread[]>('threads', key))[0]?.interactions, 2);
      await settle(c);
    });

    test('Search Papers, Refresh and Find Similar clicked twice: one request (one call) each', async () => {
      const { label } = await provisionedKey('double-search');
      const query = 'creatine supplementation and memory';
      const [s1, s2] = await twice('search', () => run<SearchOutcome>(Commands.searchPapers, query));
      assert.equal(s1?.outcome, 'shown', s1?.message);
      assert.equal(s2?.outcome, 'shown', s2?.message);
      assert.equal((await requestsOf(label, 'search')).length, 1, 'Search Papers sent twice');
      await twice('search', () => run<SearchOutcome>(Commands.refreshResults));
      assert.equal((await requestsOf(label, 'search')).length, 2, 'Refresh sent twice');
      const [paper] = await paperNodes();
      assert.ok(paper);
      await twice('search', () => run<SearchOutcome>(Commands.findSimilar, paper));
      assert.equal((await requestsOf(label, 'search')).length, 3, 'Find Similar sent twice');
      assert.equal(await chargedTo(label), 3);
    });

    test('Load More clicked twice while its page is being fetched: one request, and the second click says so', async () => {
      const { label } = await provisionedKey('double-more');
      const first = await run<SearchOutcome>(Commands.searchPapers, 'sleep and memory consolidation');
      assert.equal(first?.outcome, 'shown');
      const desk = await api();
      // Show the buffered 100 first (no request), up to the step that fetches page 1.
      for (
        let i = 0;
        i < 10 && desk.results.current && desk.results.current.papers.length < desk.results.current.fetched;
        i++
      )
        await run(Commands.loadMore);
      assert.equal((await requestsOf(label, 'search')).length, 1);
      const sinks = observeSinks();
      try {
        const [m1, m2] = await twice('search', () => run<SearchOutcome>(Commands.loadMore));
        assert.equal(m1?.outcome, 'shown');
        assert.equal(m2?.requests, 0);
        assert.ok(
          sinks.records.some((r) => r.sink === 'setStatusBarMessage' && /already/i.test(r.text)),
          'the second click was silent',
        );
      } finally {
        sinks.dispose();
      }
      assert.equal((await requestsOf(label, 'search')).length, 2);
    });
  });

  suite("Money: a request that may have been charged is not repeated behind the writer's back", () => {
    let restore: (() => Promise<void>) | undefined;
    suiteSetup(async () => {
      restore = (await useEmulatorKeepingKey()).restore;
    });
    teardown(() => control('clearFaults'));
    suiteTeardown(() => restore?.());

    // Needs the client that no longer retries a search after it may have reached the service.
    test('a search that failed after the service took it: sent once, the writer is told it may have cost a call and offered Retry', async () => {
      const { label } = await provisionedKey('maybe-charged');
      await control('injectFault', { route: 'search', kind: 'status_after', status: 502 });
      const sinks = observeSinks();
      let out: SearchOutcome | undefined;
      try {
        out = await run<SearchOutcome>(Commands.searchPapers, 'vitamin d and respiratory infections');
      } finally {
        sinks.dispose();
      }
      assert.equal((await requestsOf(label, 'search')).length, 1, 'the search was sent again');
      assert.equal(out?.outcome, 'error');
      assert.match(out?.message ?? '', /may have (been charged|cost)/i);
      assert.ok(
        sinks.records.some((r) => r.sink === 'showErrorMessage:button' && /Retry.*may cost a call/i.test(r.text)),
        'no Retry saying it may cost a call',
      );
    });

    test('a thread creation that could not be reconciled: Check Threads / Send Anyway, the brief kept; Send Anyway sends it once more', async () => {
      const { label, key } = await provisionedKey('maybe-thread');
      const c = await testCore();
      await c.threads.drafts.clear('new');
      // The connection drops after the thread was created, and the list that would tell cannot be read.
      await control('injectFault', { route: 'create_thread', kind: 'reset', afterEffect: true });
      await control('injectFault', { route: 'list_threads', kind: 'status_before', status: 503, times: 30 });
      const brief = 'What is known about microbiome recovery after antibiotics?';
      let buttons: readonly string[] = [];
      const sinks = observeSinks((sink, message, items) => {
        if (!items.some((i) => /Send Anyway/.test(i))) return undefined;
        buttons = items;
        return items.find((i) => /Send Anyway/.test(i));
      });
      try {
        const out = await run<AskOutcome>(Commands.askAgent, { message: brief });
        assert.equal(out?.outcome, 'uncertain', out?.message);
        assert.equal(out.draftKept, true);
        assert.match(out.message ?? '', /Threads/);
        assert.ok(
          buttons.some((b) => /Check Threads/.test(b)),
          `buttons: ${buttons.join(', ')}`,
        );
        assert.ok(
          buttons.some((b) => /Send Anyway.*may cost a call/.test(b)),
          `buttons: ${buttons.join(', ')}`,
        );
        assert.equal((await requestsOf(label, 'create_thread')).length >= 1, true);
        await control('clearFaults');
        // The button was "clicked": the brief goes once more, and only then is the draft dropped.
        await eventually(
          async () => (await requestsOf(label, 'create_thread')).length === 2,
          'Send Anyway sent the brief',
          200,
        );
        await eventually(() => c.threads.draft() === undefined, 'the draft was dropped after it was sent', 200);
      } finally {
        sinks.dispose();
      }
      assert.equal((await control<EmuThread[]>('threads', key)).length, 2);
      await settle(c);
    });
  });

  suite(
    `Money: a repository's settings never choose what is spent (${vscode.workspace.isTrusted ? 'trusted' : 'Restricted Mode'})`,
    () => {
      const HOSTILE_PRESET = '[Open](command:workbench.action.terminal.new)';
      let restoreKey: (() => Promise<void>) | undefined;
      let settingsFile: vscode.Uri | undefined;
      let original: string | undefined;

      const canary = (): unknown => vscode.workspace.getConfiguration('editor').inspect('rulers')?.workspaceValue;

      suiteSetup(async function () {
        const folder = vscode.workspace.workspaceFolders?.[0];
        if (!folder) this.skip();
        restoreKey = (await useEmulatorKeepingKey()).restore;
        settingsFile = vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json');
        original = await readDisk(settingsFile);
        const hostile = {
          ...(original ? (JSON.parse(original) as object) : {}),
          [Settings.plan]: 'free',
          [Settings.searchCacheMinutes]: 0,
          [Settings.requestTimeoutSeconds]: 1,
          [Settings.searchDefaultFilters]: { year_min: 3000 },
          [Settings.searchPresets]: [{ name: HOSTILE_PRESET, filters: { sjr_min: 9 } }],
          // Not a Research Desk setting: tells when VS Code has read the file.
          'editor.rulers': [97],
        };
        await writeFile(settingsFile, JSON.stringify(hostile, null, 2));
        await eventually(() => JSON.stringify(canary()) === '[97]', 'VS Code read the workspace settings', 200);
      });

      suiteTeardown(async () => {
        if (settingsFile) {
          if (original === undefined) await vscode.workspace.fs.delete(settingsFile);
          else await writeFile(settingsFile, original);
          await eventually(() => canary() === undefined, 'VS Code read the restored settings', 200);
        }
        await control('clearFaults');
        await restoreKey?.();
      });

      test('researchDesk.plan "free" from the workspace is ignored: a search asks for 100 papers', async () => {
        const { label } = await provisionedKey('ws-plan');
        const c = await testCore();
        assert.equal(c.usage.planSetting(), 'auto');
        assert.notEqual(c.usage.snapshot().planSource, 'setting');
        const out = await run<SearchOutcome>(Commands.searchPapers, 'exercise and depression in older adults');
        assert.equal(out?.outcome, 'shown', out?.message);
        const [r] = await requestsOf(label, 'search');
        assert.equal(r?.query.page_size, '100', "the search was shrunk to the free plan's page");
      });

      test('researchDesk.search.cacheMinutes 0 from the workspace is ignored: a repeat is answered from the cache', async () => {
        const { label } = await provisionedKey('ws-cache');
        await run(Commands.searchPapers, 'mindfulness apps and anxiety');
        const again = await run<SearchOutcome>(Commands.searchPapers, 'mindfulness apps and anxiety');
        assert.equal(again?.requests, 0);
        assert.equal((await requestsOf(label, 'search')).length, 1);
      });

      test('researchDesk.requestTimeoutSeconds 1 from the workspace is ignored: a search answered in 1.5 s arrives', async () => {
        const { label } = await provisionedKey('ws-timeout');
        assert.equal((await api()).settings.service.timeoutMs, 30_000);
        await control('injectFault', { route: 'search', kind: 'delay', delayMs: 1500 });
        const out = await run<SearchOutcome>(Commands.searchPapers, 'air pollution and dementia risk');
        assert.equal(out?.outcome, 'shown', out?.message);
        assert.equal((await requestsOf(label, 'search')).length, 1);
      });

      test('user settings still apply: a plan set by the writer is used', async () => {
        const c = await testCore();
        const previous = vscode.workspace.getConfiguration().inspect(Settings.plan)?.globalValue;
        await vscode.workspace.getConfiguration().update(Settings.plan, 'deep', vscode.ConfigurationTarget.Global);
        try {
          assert.equal(c.usage.planSetting(), 'deep');
        } finally {
          await vscode.workspace.getConfiguration().update(Settings.plan, previous, vscode.ConfigurationTarget.Global);
        }
      });

      test('default filters and presets: a trusted workspace may set them, Restricted Mode ignores them; a preset name is never a link', async () => {
        const c = await testCore();
        const defaults = c.filters.defaults();
        const names = c.filters.presets().map((p) => p.name);
        if (vscode.workspace.isTrusted) {
          assert.equal(defaults.filters?.year_min, 3000);
          assert.ok(names.includes(HOSTILE_PRESET));
        } else {
          assert.deepEqual(defaults.filters, {});
          assert.ok(!names.includes(HOSTILE_PRESET), 'Restricted Mode read the workspace presets');
        }
        const sinks = observeSinks();
        try {
          const applied = await run<{ ok: boolean }>(Commands.applyFilterPreset, HOSTILE_PRESET);
          assert.equal(applied?.ok, false);
        } finally {
          sinks.dispose();
        }
        const shown = sinks.records.filter((r) => r.sink === 'showErrorMessage');
        assert.equal(shown.length, 1);
        assert.ok(shown[0]!.text.includes('Open'), shown[0]!.text);
        assert.deepEqual(activeSyntax(sinks.records), []);
      });
    },
  );
}
