/**
 * The service's text is untrusted everywhere, in the real VS Code against the emulator (whose faults answer hostile
 * bodies): what reaches a notification, a status-bar message, a progress title, an input box, a Quick Pick or a tree
 * is never a link VS Code would run; a listing that names a thread twice still makes a valid tree; absurd polling
 * hints never turn into a busy loop.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AskOutcome } from '../../src/threads/threadCommands';
import type { ThreadDispatch } from '../../src/api/index';
import { Commands, Views } from '../../src/platform/ids';
import type { SearchOutcome } from '../../src/search/searchSession';
import type { ResultNode } from '../../src/search/resultsTree';
import {
  activeSyntax,
  api,
  control,
  emulatorUrl,
  eventually,
  observeSinks,
  provisionedKey,
  requestsOf,
  sleep,
  testCore,
  useEmulatorKeepingKey,
} from './support';

const run = <T>(id: string, ...args: unknown[]): Thenable<T | undefined> =>
  vscode.commands.executeCommand<T>(id, ...args);

/** A link VS Code runs, an icon, a right-to-left override. */
const HOSTILE = '[Renew your plan](command:workbench.action.openSettings) $(key) \u202eevil';

const hostile422 = {
  detail: [
    {
      loc: ['query', '[Fix](command:workbench.action.terminal.new)'],
      msg: `Your plan expired: ${HOSTILE}`,
      type: 'value_error',
    },
  ],
};

function paper(title: string, n: number): Record<string, unknown> {
  return {
    title,
    abstract: `Abstract ${n}.`,
    authors: ['A. Author'],
    doi: `10.1000/hostile.${n}`,
    journal_name: 'Journal',
    pages: '1-2',
    publish_year: 2020,
    url: `https://consensus.app/papers/hostile/${n}/`,
    volume: '1',
    citation_count: 3,
  };
}

function thread(id: string, title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    thread_id: id,
    title,
    url: `https://consensus.app/threads/${id}`,
    status: 'idle',
    preview: `${HOSTILE} preview`,
    interaction_count: 1,
    last_activity_at: new Date().toISOString(),
    ...extra,
  };
}

/** What VS Code would render as a link in a Markdown tooltip: a `](` not escaped. */
const unescapedLink = (md: string): boolean => /(^|[^\\])\]\(/.test(md);

export function untrustedSuite(): void {
  suite('Service text is untrusted at every sink', () => {
    let restore: (() => Promise<void>) | undefined;
    suiteSetup(async () => {
      restore = (await useEmulatorKeepingKey()).restore;
    });
    teardown(() => control('clearFaults'));
    suiteTeardown(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await restore?.();
    });

    test('a 422 whose msg and loc carry a command link: the search error says it, as plain text', async () => {
      await provisionedKey('hostile-422');
      await control('injectFault', { route: 'search', kind: 'status_before', status: 422, body: hostile422 });
      const sinks = observeSinks();
      let out: SearchOutcome | undefined;
      try {
        out = await run<SearchOutcome>(Commands.searchPapers, 'hostile validation text');
      } finally {
        sinks.dispose();
      }
      assert.equal(out?.outcome, 'error');
      const shown = sinks.records.filter((r) => r.sink === 'showErrorMessage');
      assert.equal(shown.length, 1);
      assert.match(shown[0]!.text, /Renew your plan/, "the service's words are still shown");
      assert.deepEqual(activeSyntax(sinks.records), []);
      assert.ok(!shown[0]!.text.includes('\u202e'), 'a right-to-left override reached the notification');
    });

    test('a 422 with a command link on thread creation: the warning is plain text and the brief is kept', async () => {
      await provisionedKey('hostile-422-thread');
      const c = await testCore();
      await control('injectFault', { route: 'create_thread', kind: 'status_before', status: 422, body: hostile422 });
      const sinks = observeSinks();
      let out: AskOutcome | undefined;
      try {
        out = await run<AskOutcome>(Commands.askAgent, { message: 'Does caffeine improve alertness?' });
      } finally {
        sinks.dispose();
      }
      assert.equal(out?.draftKept, true);
      assert.equal(c.threads.draft()?.input_message, 'Does caffeine improve alertness?');
      assert.ok(
        sinks.records.some((r) => r.sink.startsWith('show') && /Renew your plan/.test(r.text)),
        'nothing was shown',
      );
      assert.deepEqual(activeSyntax(sinks.records), []);
      await c.threads.drafts.clear('new');
    });

    test('a hostile thread title and error text: the status bar, the paused and the answered notices show them as plain text', async () => {
      await provisionedKey('hostile-title');
      const c = await testCore();
      const id = `hostileT${Date.now()}`;
      const dispatch = {
        thread_id: id,
        interaction_id: `${id}i`,
        status: 'running',
        mode: 'pro',
        url: `https://consensus.app/threads/${id}`,
        poll_after_seconds: 1,
        max_wait_seconds: 60,
        created_at: null,
        title: HOSTILE,
      };
      await control('injectFault', { route: 'create_thread', kind: 'status_before', status: 200, body: dispatch });
      await control('injectFault', {
        route: 'get_thread',
        kind: 'status_before',
        status: 403,
        body: { detail: `Plan expired: ${HOSTILE}`, code: 'feature_not_allowed' },
      });
      const sinks = observeSinks();
      try {
        const out = await run<AskOutcome>(Commands.askAgent, { message: 'Does sleep help memory?' });
        assert.equal(out?.outcome, 'sent', out?.message);
        const status = c.threadWatcher.statusItem();
        assert.ok(status.visible);
        assert.ok(!unescapedLink(status.tooltip), `status-bar tooltip: ${status.tooltip}`);
        assert.ok(!status.text.includes('key'), status.text);
        await eventually(
          () => c.threadWatcher.lastNotice?.kind === 'paused' && c.threadWatcher.lastNotice.threadId === id,
          'the 403 paused the polling',
          200,
        );
        // The run stays remembered; once the service answers, it is followed to its end.
        const answered = {
          thread_id: id,
          title: HOSTILE,
          status: 'idle',
          url: dispatch.url,
          interactions: [
            {
              interaction_id: dispatch.interaction_id,
              status: 'idle',
              mode: 'pro',
              response: 'Done [1].',
              citations: [],
              stats: { retrieved: 1, screened: 1, included: 1 },
            },
          ],
        };
        await control('injectFault', {
          route: 'get_thread',
          kind: 'status_before',
          status: 200,
          body: answered,
          times: 20,
        });
        c.threadWatcher.resume();
        await eventually(
          () => c.threadWatcher.lastNotice?.kind === 'ready' && c.threadWatcher.lastNotice.threadId === id,
          'the answered notice',
          200,
        );
      } finally {
        sinks.dispose();
      }
      const notices = sinks.records.filter((r) => r.sink.startsWith('show') && r.text.includes('Renew your plan'));
      assert.ok(notices.length >= 2, `notices: ${JSON.stringify(notices)}`);
      assert.deepEqual(activeSyntax(sinks.records), []);
    });

    test('Find Similar on a paper whose title is a command link: the progress and the empty-result notices are plain text', async () => {
      const { label } = await provisionedKey('hostile-paper');
      const body = {
        results: [paper(HOSTILE, 1), paper('A plain title', 2)],
        page: 0,
        page_size: 100,
        is_end: true,
        next_page: null,
      };
      await control('injectFault', { route: 'search', kind: 'status_before', status: 200, body });
      const first = await run<SearchOutcome>(Commands.searchPapers, 'hostile titles please');
      assert.equal(first?.outcome, 'shown', first?.message);
      const desk = await api();
      const node = desk.results
        .getChildren()
        .find((n): n is Extract<ResultNode, { kind: 'paper' }> => n.kind === 'paper' && n.paper.title === HOSTILE);
      assert.ok(node, 'the hostile paper is not shown');
      const item = desk.results.getTreeItem(node);
      const shownLabel = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
      assert.ok(!/\]\(|\$\(/.test(shownLabel), `label: ${shownLabel}`);
      const tip = desk.results.resolveTreeItem(item, node).tooltip as vscode.MarkdownString;
      assert.ok(!tip.isTrusted && !unescapedLink(tip.value), tip.value);
      // Slow enough for the cancellable progress notification to show the query.
      await control('injectFault', { route: 'search', kind: 'delay', delayMs: 1500 });
      const sinks = observeSinks();
      try {
        await run<SearchOutcome>(Commands.findSimilar, node);
      } finally {
        sinks.dispose();
      }
      assert.ok(
        sinks.records.some((r) => r.sink === 'withProgress' && r.text.includes('Renew your plan')),
        JSON.stringify(sinks.records),
      );
      assert.deepEqual(activeSyntax(sinks.records), []);
      // The hostile page came from a fault (answered before the key was read); the similar-papers search was sent once.
      assert.equal((await requestsOf(label, 'search')).length, 1);
    });

    test('a listing that names a thread twice, with hostile titles: one tree item per id, the newest kept, tooltips escaped', async () => {
      await provisionedKey('hostile-list');
      const c = await testCore();
      const desk = await api();
      const a = `dupA${Date.now()}`;
      const b = `dupB${Date.now()}`;
      const body = {
        threads: [thread(a, `${HOSTILE} newest`), thread(b, 'Second thread'), thread(a, 'Older copy of the first')],
        has_more: false,
      };
      await control('injectFault', { route: 'list_threads', kind: 'status_before', status: 200, body });
      // Polls of these invented threads answer 404; what matters here is the listing.
      assert.equal(await run<number>(Commands.refreshThreads), 2);
      const snap = c.threadsModel.snapshot();
      assert.deepEqual(
        snap.threads.map((t) => t.threadId),
        [a, b],
      );
      assert.match(snap.threads[0]!.title, /newest/);
      const tree = desk.threads;
      const roots = await tree.getChildren();
      const items = roots.map((n) => tree.getTreeItem(n));
      assert.equal(
        new Set(items.map((i) => i.id)).size,
        items.length,
        `duplicate tree ids: ${items.map((i) => i.id).join(', ')}`,
      );
      // The real tree: VS Code registers every root; a duplicate id makes it throw.
      await vscode.commands.executeCommand(`${Views.threads}.focus`);
      await tree.treeView!.reveal(roots[0]!, { select: false, focus: false, expand: false });
      const label = typeof items[0]!.label === 'string' ? items[0]!.label : (items[0]!.label?.label ?? '');
      assert.ok(!/\]\(|\$\(/.test(label), `label: ${label}`);
      const tip = tree.resolveTreeItem(items[0]!, roots[0]!).tooltip as vscode.MarkdownString;
      assert.ok(!tip.isTrusted && !unescapedLink(tip.value), tip.value);
      // A listing that fails with hostile text: the view's message is plain text.
      await control('injectFault', { route: 'list_threads', kind: 'status_before', status: 422, body: hostile422 });
      await run(Commands.refreshThreads);
      const message = tree.treeView?.message ?? c.threadsModel.snapshot().message ?? '';
      assert.match(message, /Renew your plan/);
      assert.deepEqual(activeSyntax([{ sink: 'treeView.message', text: message }]), []);
      await control('clearFaults');
      await run(Commands.refreshThreads);
    });

    test('absurd polling hints (3e6 s, 1e9 s, 0, negative) are bounded: no busy loop, the run remembered with sane values', async () => {
      const { key } = await provisionedKey('hostile-hints');
      const c = await testCore();
      await control('setRunOutcome', { durationMs: 3_600_000 });
      const res = await fetch(`${await emulatorUrl()}/v1/threads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ input_message: 'Does green tea lower blood pressure?' }),
      });
      const dispatch = (await res.json()) as ThreadDispatch;
      const id = dispatch.thread_id;
      try {
        c.threadWatcher.watch({ ...dispatch, poll_after_seconds: 3e6, max_wait_seconds: 1e9 });
        await sleep(1500);
        assert.equal(c.threadWatcher.polls.get(id) ?? 0, 0, 'an overflowing poll delay fired at once');
        const runOf = (): { pollAfterSeconds: number; maxWaitSeconds: number } | undefined =>
          c.threadWatcher.running().find((r) => r.threadId === id);
        assert.ok(runOf()!.pollAfterSeconds <= 300 && runOf()!.maxWaitSeconds <= 3600, JSON.stringify(runOf()));
        const kept = c.threadWatcher.remembered().find((r) => r.threadId === id);
        assert.ok(kept && kept.pollAfterSeconds <= 300 && kept.maxWaitSeconds <= 3600, JSON.stringify(kept));
        for (const poll of [0, -5]) {
          c.threadWatcher.watch({ ...dispatch, poll_after_seconds: poll, max_wait_seconds: 0 });
          assert.ok(runOf()!.pollAfterSeconds >= 1 && runOf()!.maxWaitSeconds >= 1, JSON.stringify(runOf()));
        }
      } finally {
        await control('clearRunOutcomes');
        await control('completeRuns');
        const r = c.threadWatcher.running().find((x) => x.threadId === id);
        if (r) c.threadWatcher.keepWaiting({ ...r, pollAfterSeconds: 1 });
        await eventually(() => !c.threadWatcher.isRunning(id), 'the run ended', 400);
      }
    });
  });
}
