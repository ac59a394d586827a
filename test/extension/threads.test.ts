import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AskOutcome } from '../../src/threads/threadCommands';
import { Commands, Settings } from '../../src/platform/ids';
import type { ThreadFinished, ThreadWatcher } from '../../src/threads/threadWatcher';
import type { RunningThread } from '../../src/threads/persisted';
import { keyTag } from '../../src/service/keyTag';
import type { ResultNode } from '../../src/search/resultsTree';
import { echoesInstruction } from '../../src/threads/briefGist';
import {
  acceptQuickInput,
  api,
  control,
  createThread,
  emulatorUrl,
  eventually,
  setUserSettings,
  testCore,
  useEmulatorSettings,
} from './support';

interface EmuRequest {
  route: string;
  path: string;
  keyLabel: string | null;
  status: number;
}
interface EmuCharge {
  keyLabel: string;
  calls: number;
  reason: string;
  threadId?: string;
}
interface EmuThread {
  threadId: string;
  title: string | null;
  interactions: number;
  status: string;
}

let counter = 0;

/** A fresh key of its own (its threads, requests and charges are this test's only), stored for the emulator. */
async function freshKey(plan = 'pro'): Promise<{ label: string; key: string }> {
  const label = `threads-test-${Date.now()}-${++counter}`;
  const key = await control<string>('provisionKey', { plan, label });
  const desk = await api();
  await desk.keys.set(key, new URL(await emulatorUrl()).origin);
  return { label, key };
}

async function requests(label: string, route: string): Promise<EmuRequest[]> {
  return (await control<EmuRequest[]>('requests')).filter((r) => r.keyLabel === label && r.route === route);
}

async function charges(label: string): Promise<EmuCharge[]> {
  return (await control<EmuCharge[]>('charges')).filter((c) => c.keyLabel === label);
}

/** The agent's trace of a thread, read straight from the service with the test's key. */
async function trace(key: string, threadId: string): Promise<string> {
  const res = await fetch(`${await emulatorUrl()}/v1/threads/${threadId}?include_trace=true`, {
    headers: { 'x-api-key': key },
  });
  return ((await res.json()) as { trace?: string }).trace ?? '';
}

const run = <T>(id: string, ...args: unknown[]): Thenable<T | undefined> =>
  vscode.commands.executeCommand<T>(id, ...args);

/**
 * Every run end the watcher reported since `recordEnds`, by thread id: a run that ends (at the emulator's speed, in
 * about a second) before a test starts waiting for it is not missed.
 */
const ends = new Map<string, ThreadFinished[]>();
let recording: vscode.Disposable | undefined;
function recordEnds(watcher: ThreadWatcher): void {
  recording ??= watcher.onDidFinish((e) => ends.set(e.threadId, [...(ends.get(e.threadId) ?? []), e]));
}

/** Waits for the watcher to report the end of `threadId`'s run (the next one not yet waited for). */
async function finished(watcher: ThreadWatcher, threadId: string): Promise<ThreadFinished> {
  recordEnds(watcher);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const e = ends.get(threadId)?.shift();
    if (e) return e;
    if (Date.now() > deadline) {
      const n = watcher.lastNotice;
      const emu = (await control<EmuThread[]>('threads')).find((t) => t.threadId === threadId);
      throw new Error(
        `No thread finished event for ${threadId} in 20 s (still followed: ${watcher.isRunning(threadId)}; polls: ${watcher.polls.get(threadId) ?? 0}; ` +
          `the emulator says: ${JSON.stringify(emu)}; last notice: ${n ? `${n.kind} ${n.threadId}: ${n.message}` : 'none'}).`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function threadsSuite(): void {
  suite('Threads (real VS Code against the emulator)', () => {
    let restore: (() => Promise<void>) | undefined;

    suiteSetup(async () => {
      restore = (await useEmulatorSettings()).restore;
      recordEnds((await testCore()).threadWatcher);
    });
    // What a test leaves behind must not reach the next one: a run it left polling would take the next test's faults,
    // and a fault or run outcome it did not use would meet the next test's requests.
    teardown(async () => {
      (await testCore()).threadWatcher.stopAll();
      await control('clearFaults');
      await control('clearRunOutcomes');
    });
    suiteTeardown(async () => {
      recording?.dispose();
      recording = undefined;
      ends.clear();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await restore?.();
    });

    test('a selection becomes a thread; when it finishes the watcher says so (Open Answer) and the answer opens', async () => {
      const { key } = await freshKey();
      const c = await testCore();
      const doc = await vscode.workspace.openTextDocument({
        language: 'markdown',
        content: 'Intro.\n\nCreatine supplementation improves short-term memory in healthy adults.\n\nMore text.',
      });
      const editor = await vscode.window.showTextDocument(doc);
      editor.selection = new vscode.Selection(2, 0, 2, doc.lineAt(2).text.length);
      const outcome = await run<AskOutcome>(Commands.askAboutSelection, {
        instructions: 'Find randomized trials that test this claim.',
      });
      assert.equal(outcome?.outcome, 'sent', outcome?.message);
      const threadId = outcome.threadId!;
      assert.ok(outcome.request?.input_message.startsWith('Find randomized trials that test this claim.'));
      assert.ok(outcome.request?.input_message.includes('Creatine supplementation improves short-term memory'));
      assert.ok(c.threadWatcher.isRunning(threadId));
      const status = c.threadWatcher.statusItem();
      assert.ok(status.visible && /1 thread running/.test(status.text), status.text);
      const ended = await finished(c.threadWatcher, threadId);
      assert.equal(ended.status, 'idle');
      assert.equal(c.threadWatcher.isRunning(threadId), false);
      assert.equal(c.threadWatcher.lastNotice?.kind, 'ready');
      assert.deepEqual(c.threadWatcher.lastNotice?.actions, ['Open Answer']);
      const threads = await control<EmuThread[]>('threads', key);
      assert.equal(threads.length, 1);
      assert.equal(threads[0]?.status, 'idle');
      // Open Answer (what the button does, through the Threads view command).
      assert.equal(await run<boolean>(Commands.openThread, threadId), true);
      assert.ok(c.answers.openThreads().includes(threadId), 'no answer panel for the thread');
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      assert.equal(
        c.threadWatcher.remembered().some((r) => r.threadId === threadId),
        false,
      );
    });

    test('a selection thread is named by its selection, not the instruction the service titled it by; its answer shows each question and the filters it ran under', async () => {
      const { key } = await freshKey();
      const c = await testCore();
      await c.filters.set({ year_min: 2015 });
      const claim = 'Intermittent fasting improves insulin sensitivity in adults with obesity.';
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: `Intro.\n\n${claim}\n` });
      try {
        const editor = await vscode.window.showTextDocument(doc);
        editor.selection = new vscode.Selection(2, 0, 2, claim.length);
        // No instructions: the brief starts with the same instruction sentence as every selection brief.
        const outcome = await run<AskOutcome>(Commands.askAboutSelection, { useFilters: true });
        assert.equal(outcome?.outcome, 'sent', outcome?.message);
        const threadId = outcome.threadId!;
        const emu = (await control<EmuThread[]>('threads', key))[0];
        assert.ok(echoesInstruction(emu?.title ?? ''), `the emulator's title no longer echoes it: ${emu?.title}`);
        const status = c.threadWatcher.statusItem();
        assert.match(status.tooltip, /Intermittent fasting improves insulin/);
        assert.ok(!/passage from my draft/i.test(status.tooltip), status.tooltip);
        assert.equal((await finished(c.threadWatcher, threadId)).status, 'idle');
        assert.match(c.threadWatcher.lastNotice?.message ?? '', /answered "Intermittent fasting improves insulin/);
        assert.ok(!/passage from my draft/i.test(c.threadWatcher.lastNotice?.message ?? ''));

        // The Threads view: the row named by the selection, marked filtered, the filters in its tooltip.
        await run(Commands.searchThreads, '');
        const tree = (await api()).threads;
        const row = (await tree.getChildren()).find((n) => n.kind === 'thread' && n.row.threadId === threadId);
        assert.ok(row?.kind === 'thread', 'the thread is not listed');
        assert.match(row.row.title, /^Intermittent fasting improves insulin/);
        const item = tree.resolveTreeItem(tree.getTreeItem(row), row);
        assert.match(item.label as string, /^Intermittent fasting/);
        assert.match(String(item.description), /answered · 1 turn · .* · filtered/);
        assert.match((item.tooltip as vscode.MarkdownString).value, /Filters: 2015\\?\+/);
        const [turn] = await tree.getChildren(row);
        assert.ok(turn?.kind === 'interaction');
        assert.match(tree.getTreeItem(turn).label as string, /^Intermittent fasting improves insulin/);

        // The answer: the selection's name, "answered", the question above the answer, the filters.
        const a = c.answers;
        await a.show(threadId);
        let html = a.inspect(threadId)!.html;
        assert.match(html, /<h1 id="thread-title">Intermittent fasting improves insulin[^<]*<\/h1>/);
        assert.equal(a.inspect(threadId)!.title.startsWith('Intermittent fasting'), true);
        assert.match(
          html,
          /class="question[^"]*"[\s\S]*Intermittent fasting improves insulin sensitivity in adults with obesity\./,
        );
        assert.ok(
          html.indexOf('class="question') < html.indexOf('class="answer'),
          'the question is not above the answer',
        );
        assert.match(html, /<dd class="filters">2015\+<\/dd>/);

        // A follow-up without filters: its own question (escaped) above its answer, its own filters ("none").
        await c.filters.clear();
        const follow = await c.threads.followUp(threadId, 'And <b>in</b> adolescents?');
        assert.equal(follow.outcome, 'sent', follow.message);
        assert.equal((await finished(c.threadWatcher, threadId)).status, 'idle');
        await eventually(
          () => /And &lt;b&gt;in&lt;\/b&gt; adolescents\?/.test(a.inspect(threadId)!.html),
          'the follow-up painted',
          200,
        );
        html = a.inspect(threadId)!.html;
        assert.match(html, /<p class="question-text">And &lt;b&gt;in&lt;\/b&gt; adolescents\?<\/p>/);
        assert.match(html, /<dd class="filters">none \(sent without search filters\)<\/dd>/);
        assert.match(html, /<option [^>]*>Interaction 1: Intermittent fasting[^<]*\(answered\)<\/option>/);
        assert.match(
          html,
          /<option [^>]*selected>Interaction 2: And &lt;b&gt;in&lt;\/b&gt; adolescents\? \(answered\)<\/option>/,
        );
      } finally {
        await c.filters.clear();
        await vscode.window.showTextDocument(doc);
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
    });

    test('Ask the Research Agent opens a brief document with the unsent draft; its CodeLens sends it without the header', async () => {
      await freshKey();
      const c = await testCore();
      const brief =
        'Restored brief: does bilingualism improve executive function in children?\n\nInclude longitudinal studies.';
      await c.threads.drafts.keep('new', { input_message: brief, mode: 'pro' }, 'test');
      const opened = await run<AskOutcome>(Commands.askAgent);
      assert.equal(opened?.outcome, 'opened');
      const doc = vscode.window.activeTextEditor?.document;
      assert.ok(doc);
      assert.equal(doc.uri.toString(), opened.uri);
      assert.ok(doc.getText().includes(brief), 'the draft was not restored into the brief');
      // VS Code names an untitled tab after its first line: a readable heading, not the header comment.
      assert.equal(doc.lineAt(0).text, '# Research brief');
      const tabLabel = (): string =>
        vscode.window.tabGroups.all
          .flatMap((g) => g.tabs)
          .find((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === doc.uri.toString())
          ?.label ?? '';
      await eventually(() => /Research brief/.test(tabLabel()), 'the tab is titled by the heading');
      assert.ok(!tabLabel().includes('<!--'), tabLabel());
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
      const send = lenses.find(
        (l) =>
          l.command?.command === Commands.sendBrief && (l.command.arguments?.[0] as { mode?: string }).mode === 'pro',
      );
      assert.ok(send?.command, 'no Send CodeLens');
      const sent = await run<AskOutcome>(send.command.command, ...((send.command.arguments ?? []) as unknown[]));
      assert.equal(sent?.outcome, 'sent', sent?.message);
      assert.equal(sent.request?.input_message, brief);
      assert.equal(
        doc.isClosed || !vscode.window.visibleTextEditors.some((e) => e.document === doc),
        true,
        'the brief stayed open',
      );
      assert.equal(c.threads.draft(), undefined);
      await finished(c.threadWatcher, sent.threadId!);
    });

    test('a run still going at max_wait_seconds stops polling and offers Keep Waiting, which follows it to the end', async () => {
      await freshKey();
      const c = await testCore();
      await control('setRunOutcome', { durationMs: 600_000 });
      const outcome = await run<AskOutcome>(Commands.askAgent, {
        message: 'What does the research say about air pollution and dementia?',
      });
      assert.equal(outcome?.outcome, 'sent');
      const threadId = outcome.threadId!;
      await eventually(
        () => c.threadWatcher.lastNotice?.kind === 'stillRunning' && c.threadWatcher.lastNotice.threadId === threadId,
        'the polling ceiling was reached',
        300,
      );
      assert.equal(c.threadWatcher.isRunning(threadId), false);
      assert.ok(c.threadWatcher.lastNotice?.actions.includes('Keep Waiting'));
      c.threadWatcher.keepWaiting(c.threadWatcher.lastNotice!.run!);
      assert.ok(c.threadWatcher.isRunning(threadId));
      const done = finished(c.threadWatcher, threadId);
      await control('completeRuns');
      assert.equal((await done).status, 'idle');
    });

    test('selected papers become attachments.paper_ids (the last path segment of their url), under the current filters', async () => {
      const { key } = await freshKey();
      const c = await testCore();
      const desk = await api();
      const searched = await run<{ outcome: string }>(Commands.searchPapers, 'creatine supplementation cognition');
      assert.equal(searched?.outcome, 'shown');
      const papers = desk.results
        .getChildren()
        .filter((n): n is Extract<ResultNode, { kind: 'paper' }> => n.kind === 'paper')
        .slice(0, 3);
      assert.equal(papers.length, 3);
      const ids = papers.map((p) => new URL(p.paper.url!).pathname.split('/').filter(Boolean).at(-1)!);
      await c.filters.set({ year_min: 2010, study_types: ['rct'], include_semantic_score: true });
      try {
        // What VS Code passes for a multi-select context menu: the clicked node and the selection.
        // The brief is asked for; an empty one (Enter twice) is refused, showing what would be sent.
        const fromMenu = await acceptQuickInput(run<AskOutcome>(Commands.askAboutPapers, papers[0], papers));
        assert.equal(fromMenu?.outcome, 'invalid');
        assert.deepEqual(fromMenu.request?.attachments?.paper_ids, ids);
        assert.equal((fromMenu.request?.filters as Record<string, unknown> | undefined)?.year_min, 2010);
        const sent = await run<AskOutcome>(Commands.askAgent, {
          message: 'What do these trials find about creatine and memory?',
          attachPapers: ids,
          useFilters: true,
        });
        assert.equal(sent?.outcome, 'sent', sent?.message);
        assert.deepEqual(sent.request?.attachments?.paper_ids, ids);
        assert.equal((sent.request?.filters as Record<string, unknown>).year_min, 2010);
        assert.equal('include_semantic_score' in (sent.request?.filters ?? {}), false);
        await finished(c.threadWatcher, sent.threadId!);
        const log = await trace(key, sent.threadId!);
        assert.match(log, /Attachments: 3 of 3 attached papers found/);
        assert.match(log, /filters: year_min=2010, study_types=rct/);
      } finally {
        await c.filters.clear();
      }
    });

    test('text typed in the selected-papers box survives Escape: kept as the draft, offered again in the box; nothing sent', async () => {
      const { label } = await freshKey();
      const c = await testCore();
      await c.threads.drafts.clear();
      try {
        const pending = run<AskOutcome>(Commands.askAboutPapers, { attachPapers: ['paper-a', 'paper-b'] });
        await eventually(() => c.threads.briefInput !== undefined, 'the brief box');
        const typed = 'Which of these trials measured memory after six months?';
        c.threads.briefInput!.value = typed;
        c.threads.briefInput!.hide();
        const out = await pending;
        assert.equal(out?.outcome, 'cancelled');
        assert.equal(out.draftKept, true);
        assert.equal(c.threads.draft()?.input_message, typed);
        assert.deepEqual(c.threads.draft()?.attachments?.paper_ids, ['paper-a', 'paper-b']);
        // The next brief box offers it again, and says so.
        const again = run<AskOutcome>(Commands.askAboutPapers, { attachPapers: ['paper-a'] });
        await eventually(() => c.threads.briefInput !== undefined, 'the brief box again');
        assert.equal(c.threads.briefInput!.value, typed);
        assert.match(c.threads.briefInput!.prompt ?? '', /restored/);
        c.threads.briefInput!.hide();
        assert.equal((await again)?.outcome, 'cancelled');
        // A box closed empty keeps nothing.
        await c.threads.drafts.clear();
        const empty = run<AskOutcome>(Commands.askAboutPapers, { attachPapers: ['paper-a'] });
        await eventually(() => c.threads.briefInput !== undefined, 'the empty brief box');
        c.threads.briefInput!.hide();
        assert.equal((await empty)?.draftKept, undefined);
        assert.equal(c.threads.draft(), undefined);
        assert.equal((await requests(label, 'create_thread')).length, 0, 'something was sent');
      } finally {
        await c.threads.drafts.clear();
      }
    });

    test('more than 50 papers, an empty brief and one over 10,000 characters send nothing; the long draft is kept', async () => {
      const { label } = await freshKey();
      const c = await testCore();
      const many = Array.from({ length: 51 }, (_, i) => `p${i}`);
      const tooMany = await run<AskOutcome>(Commands.askAboutPapers, { attachPapers: many, message: 'Compare these.' });
      assert.equal(tooMany?.outcome, 'invalid');
      assert.match(tooMany.message ?? '', /at most 50/);
      const empty = await run<AskOutcome>(Commands.askAgent, { message: '   ' });
      assert.equal(empty?.outcome, 'invalid');
      const long = 'a'.repeat(10_001);
      const over = await run<AskOutcome>(Commands.askAgent, { message: long });
      assert.equal(over?.outcome, 'invalid');
      assert.match(over.message ?? '', /10001|10,001/);
      assert.equal(over.draftKept, true);
      assert.equal(c.threads.draft()?.input_message, long);
      assert.equal((await requests(label, 'create_thread')).length, 0, 'something was sent');
      // A valid brief afterwards clears the draft.
      const ok = await run<AskOutcome>(Commands.askAgent, { message: 'Does caffeine improve reaction time?' });
      assert.equal(ok?.outcome, 'sent');
      assert.equal(c.threads.draft(), undefined);
      await finished(c.threadWatcher, ok.threadId!);
    });

    test('deep mode on a free plan is explained and not sent; the draft is kept', async () => {
      const { label } = await freshKey('free');
      const c = await testCore();
      const restorePlan = await setUserSettings({ [Settings.plan]: 'free' });
      try {
        const outcome = await run<AskOutcome>(Commands.askAgent, {
          message: 'A structured report on sleep and memory consolidation.',
          mode: 'deep',
        });
        assert.equal(outcome?.outcome, 'refused');
        assert.match(outcome.message ?? '', /paid plan/);
        assert.equal(c.threads.draft()?.mode, 'deep');
        assert.equal((await requests(label, 'create_thread')).length, 0);
      } finally {
        await restorePlan();
      }
    });

    test('a follow-up while the answer is being written gets the 409 explained and keeps the draft', async () => {
      const { key, label } = await freshKey();
      const c = await testCore();
      await control('setRunOutcome', { durationMs: 600_000 });
      const first = await run<AskOutcome>(Commands.askAgent, {
        message: 'How does exercise affect depression in older adults?',
      });
      assert.equal(first?.outcome, 'sent');
      const threadId = first.threadId!;
      const follow = await c.threads.followUp(threadId, 'And in adolescents?');
      assert.equal(follow.outcome, 'conflict');
      assert.match(follow.message ?? '', /still being written/);
      assert.equal(c.threads.draft(threadId)?.input_message, 'And in adolescents?');
      assert.equal((await requests(label, 'add_interaction')).filter((r) => r.status === 409).length, 1);
      await control('completeRuns');
      await finished(c.threadWatcher, threadId);
      const again = await c.threads.followUp(threadId, 'And in adolescents?');
      assert.equal(again.outcome, 'sent');
      assert.equal(c.threads.draft(threadId), undefined);
      await finished(c.threadWatcher, threadId);
      assert.equal((await control<EmuThread[]>('threads', key))[0]?.interactions, 2);
    });

    test('a 5xx after the service created the thread produces exactly one thread', async () => {
      const { key, label } = await freshKey();
      const c = await testCore();
      await control('injectFault', { route: 'create_thread', kind: 'status_after', status: 500 });
      const outcome = await run<AskOutcome>(Commands.askAgent, {
        message: 'What is known about microbiome changes after antibiotics?',
      });
      assert.ok(outcome?.outcome === 'sent' || outcome?.outcome === 'uncertain', String(outcome?.outcome));
      assert.equal((await requests(label, 'create_thread')).length, 1, 'the POST was sent again');
      const threads = await control<EmuThread[]>('threads', key);
      assert.equal(threads.length, 1);
      if (outcome.outcome === 'sent') {
        assert.equal(outcome.threadId, threads[0]?.threadId);
        await finished(c.threadWatcher, outcome.threadId!);
      } else {
        assert.equal(outcome.draftKept, true);
      }
    });

    test('a failed run says so and offers Retry; Retry runs again and only the successful run is charged', async () => {
      const { label } = await freshKey();
      const c = await testCore();
      await control('failNextRun');
      const outcome = await run<AskOutcome>(Commands.askAgent, {
        message: 'Does vitamin D prevent respiratory infections?',
      });
      assert.equal(outcome?.outcome, 'sent');
      const ended = await finished(c.threadWatcher, outcome.threadId!);
      assert.equal(ended.status, 'failed');
      const notice = c.threadWatcher.lastNotice;
      assert.equal(notice?.kind, 'failed');
      assert.ok(notice.actions.includes('Retry'));
      assert.match(notice.message, /failed/);
      assert.equal((await charges(label)).length, 0, 'the failed run was charged');
      const retried = (await c.threadWatcher.retryRun(notice.run!)) as AskOutcome;
      assert.equal(retried.outcome, 'sent');
      assert.equal(retried.request?.input_message, 'Does vitamin D prevent respiratory infections?');
      assert.equal((await finished(c.threadWatcher, retried.threadId!)).status, 'idle');
      const charged = await charges(label);
      assert.equal(charged.length, 1);
      assert.equal(charged[0]?.threadId, retried.threadId);
    });

    test('running threads are remembered in globalState; after the watcher is dropped and resumed from it, the answer still arrives', async () => {
      await freshKey();
      const c = await testCore();
      await control('setRunOutcome', { durationMs: 600_000 });
      const outcome = await run<AskOutcome>(Commands.askAgent, { message: 'Do mindfulness apps reduce anxiety?' });
      assert.equal(outcome?.outcome, 'sent');
      const threadId = outcome.threadId!;
      // What a window reload does to the watcher: its memory is gone, globalState stays.
      c.threadWatcher.stopAll();
      assert.equal(c.threadWatcher.isRunning(threadId), false);
      assert.ok(
        c.threadWatcher.remembered().some((r) => r.threadId === threadId),
        'the running thread is not in globalState',
      );
      assert.equal(c.threadWatcher.resume(), 1);
      assert.ok(c.threadWatcher.isRunning(threadId));
      const done = finished(c.threadWatcher, threadId);
      await control('completeRuns');
      assert.equal((await done).status, 'idle');
      assert.equal(
        c.threadWatcher.remembered().some((r) => r.threadId === threadId),
        false,
        'still remembered after it finished',
      );
    });

    test("a run pauses, not lost, when another account's key is set, and is followed again with its key; a new key of its own account follows it on", async () => {
      const first = await freshKey();
      const origin = new URL(await emulatorUrl()).origin;
      const c = await testCore();
      const desk = await api();
      await control('setRunOutcome', { durationMs: 600_000 });
      // Polled every second, for up to a minute (the emulator's own hints would end the watch after 4 s).
      const hints = { route: 'create_thread', kind: 'hints', pollAfterSeconds: 1, maxWaitSeconds: 60 };
      await control('injectFault', hints);
      const outcome = await run<AskOutcome>(Commands.askAgent, { message: 'Does caffeine improve reaction time?' });
      assert.equal(outcome?.outcome, 'sent', outcome?.message);
      const threadId = outcome.threadId!;
      const remembered = (): RunningThread | undefined =>
        c.threadWatcher.remembered().find((r) => r.threadId === threadId);
      await eventually(() => remembered()?.keyTag === keyTag(first.key), 'the run is remembered with its key');
      assert.ok(!JSON.stringify(c.threadWatcher.remembered()).includes(first.key), 'the key itself is in globalState');

      // Another account's key: the service does not show it the thread (404).
      const other = await freshKey();
      await eventually(() => !c.threadWatcher.isRunning(threadId), 'the poll under the other key', 200);
      assert.deepEqual(
        (await requests(other.label, 'get_thread')).filter((r) => r.path.endsWith(threadId)).map((r) => r.status),
        [404],
      );
      assert.equal(c.threadWatcher.lastNotice?.kind, 'paused');
      assert.match(c.threadWatcher.lastNotice?.message ?? '', /asked with another API key/);
      assert.equal(remembered()?.keyTag, keyTag(first.key), 'the run was forgotten or retagged');

      // Its own key again: followed on, to its answer.
      await desk.keys.set(first.key, origin);
      await eventually(() => c.threadWatcher.isRunning(threadId), 'the run followed again');
      const done = finished(c.threadWatcher, threadId);
      await control('completeRuns');
      assert.equal((await done).status, 'idle');
      assert.equal(c.threadWatcher.lastNotice?.kind, 'ready');

      // A new key of the same account (the old one revoked and replaced) follows a run asked with the old one.
      await control('setRunOutcome', { durationMs: 600_000 });
      await control('injectFault', hints);
      const second = await run<AskOutcome>(Commands.askAgent, { message: 'Does napping improve recall?' });
      assert.equal(second?.outcome, 'sent', second?.message);
      const secondId = second.threadId!;
      await eventually(
        () => c.threadWatcher.remembered().find((r) => r.threadId === secondId)?.keyTag === keyTag(first.key),
        'the second run is remembered with its key',
      );
      const renewed = await control<string>('provisionKey', { plan: 'pro', label: first.label });
      await desk.keys.set(renewed, origin);
      await eventually(
        () => c.threadWatcher.remembered().find((r) => r.threadId === secondId)?.keyTag === keyTag(renewed),
        'the run polled with the new key',
        200,
      );
      assert.ok(c.threadWatcher.isRunning(secondId));
      const secondDone = finished(c.threadWatcher, secondId);
      await control('completeRuns');
      assert.equal((await secondDone).status, 'idle');
    });

    test('Threads view: newest first, 20 per page with Load More, title search, status icons and interactions', async () => {
      const { key, label } = await freshKey();
      const c = await testCore();
      const base = await emulatorUrl();
      for (let i = 0; i < 23; i++) {
        const res = await fetch(`${base}/v1/threads`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({
            input_message:
              i === 5
                ? 'Zebra finches and song learning: what do lesion studies show?'
                : `Question number ${i} about sleep and memory.`,
          }),
        });
        assert.equal(res.status, 200);
      }
      await control('completeRuns');
      const listed = await run<number>(Commands.refreshThreads);
      assert.equal(listed, 20);
      let snap = c.threadsModel.snapshot();
      assert.equal(snap.more, true);
      assert.match(snap.threads[0]?.title ?? '', /Question number 22/);
      assert.equal(await run<number>(Commands.loadMoreThreads), 23);
      snap = c.threadsModel.snapshot();
      assert.equal(snap.more, false);
      assert.equal(new Set(snap.threads.map((t) => t.threadId)).size, 23);
      assert.ok(snap.threads.every((t) => t.status === 'idle'));
      assert.equal(await run<number>(Commands.searchThreads, 'zebra'), 1);
      assert.match(c.threadsModel.snapshot().threads[0]?.title ?? '', /Zebra finches/);
      const listRequests = (await requests(label, 'list_threads')).map((r) => r.status);
      assert.deepEqual(listRequests, [200, 200, 200]);
      // The tree: status icon and the interaction as a child.
      const tree = (await api()).threads;
      const roots = await tree.getChildren();
      assert.equal(roots.length, 1);
      const item = tree.getTreeItem(roots[0]!);
      assert.equal((item.iconPath as vscode.ThemeIcon).id, 'pass');
      const kids = await tree.getChildren(roots[0]);
      assert.equal(kids.length, 1);
      assert.equal(kids[0]?.kind, 'interaction');
      // Status left out of the list (inactive past the 7-day window) is resolved from the poll.
      await control('advance', 8 * 24 * 3600 * 1000);
      try {
        await run(Commands.searchThreads, '');
        await eventually(() => c.threadsModel.unresolvedCount() <= 17, 'three missing statuses were resolved');
        assert.ok(c.threadsModel.unresolvedCount() > 0, 'every status was known: the window did not apply');
        await run(Commands.searchThreads, 'zebra');
        const [zebra] = await tree.getChildren();
        await tree.getChildren(zebra);
        await eventually(
          () => c.threadsModel.snapshot().threads[0]?.status === 'idle',
          'the expanded thread got its status',
        );
      } finally {
        await control('setClock', new Date().toISOString());
      }
      // Open in Browser / Copy Link use the thread's https url.
      const url = await run<string>(Commands.copyThreadLink, {
        kind: 'thread',
        row: c.threadsModel.snapshot().threads[0],
      });
      assert.match(url ?? '', /^https:\/\//);
      assert.equal(await vscode.env.clipboard.readText(), url);
    });

    test('a title search that a newer listing overtakes resolves with the newer list, not the one before it', async () => {
      const { key, label } = await freshKey();
      const c = await testCore();
      await createThread(key, 'Does mindfulness training reduce exam anxiety in students?');
      await c.threadsModel.search('no title holds this');
      assert.equal(c.threadsModel.snapshot().threads.length, 0, 'the list before the search');
      // Both listings answered late, in the order sent: the search's arrives first, already overtaken.
      await control('injectFault', { route: 'list_threads', kind: 'delay', delayMs: 300, times: 2 });
      const before = (await requests(label, 'list_threads')).length;
      const searching = c.threadsModel.search('');
      const refreshing = c.threadsModel.load();
      await searching;
      assert.equal(c.threadsModel.snapshot().threads.length, 1, 'the search resolved with the list it asked for');
      await refreshing;
      assert.ok((await requests(label, 'list_threads')).length >= before + 2, 'both listings were sent');
    });

    test('Threads view without a key: empty, so its welcome content asks for one; no listing request; the key back lists again', async () => {
      const { key, label } = await freshKey();
      const c = await testCore();
      const desk = await api();
      // The view asks the hasKey context, which follows the key store a moment after the key is stored (the first key
      // of a window when this test runs alone).
      await eventually(() => desk.hasKey.value === true, 'the hasKey context knows the key');
      const origin = new URL(await emulatorUrl()).origin;
      await createThread(key, 'Does bilingualism delay the onset of dementia?');
      await run(Commands.searchThreads, '');
      const tree = desk.threads;
      assert.equal((await tree.getChildren()).length, 1, 'listed with the key');
      await desk.keys.delete(origin);
      await eventually(() => desk.hasKey.value === false, 'the hasKey context follows the key store');
      const before = (await requests(label, 'list_threads')).length;
      const allListings = async (): Promise<number> =>
        (await control<EmuRequest[]>('requests')).filter((r) => r.route === 'list_threads').length;
      const listingsBefore = await allListings();
      assert.deepEqual(await tree.getChildren(), [], 'no key: no rows (the welcome content shows)');
      assert.equal(tree.treeView?.message, undefined, 'no error sentence over the welcome content');
      assert.equal(await allListings(), listingsBefore, 'nothing listed without a key');
      await desk.keys.set(key, origin);
      await eventually(() => desk.hasKey.value === true, 'the key is back');
      await eventually(async () => (await requests(label, 'list_threads')).length > before, 'the key back lists again');
      await eventually(async () => (await tree.getChildren()).length === 1, 'its thread shown again');
      assert.equal(c.threadsModel.snapshot().message, undefined);
    });
  });
}
