/**
 * The answer view in the real VS Code against the emulator: the panel's page (CSP,
 * nonce, no inline script or style), hostile answers, message validation on the host, Copy
 * Quote, follow-up (and 409), trace, earlier interactions, export. A follow-up from the view is sent the way every
 * brief is (ThreadCommands: the free-plan check, the kept draft, the ThreadWatcher and its Retry).
 */
import * as assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import * as vscode from 'vscode';
import type { AnswerPanels } from '../../src/answer/answerPanel';
import type { Thread } from '../../src/api/index';
import { Commands, Settings } from '../../src/platform/ids';
import type { AskOutcome } from '../../src/threads/threadCommands';
import type { ThreadFinished, ThreadWatcher } from '../../src/threads/threadWatcher';
import {
  api,
  control,
  emulatorUrl,
  eventually,
  finishedThread,
  htmlPattern,
  observeSinks,
  provisionedKey,
  requestsOf,
  setUserSettings,
  testCore,
  threadTitle,
  useEmulatorSettings,
} from './support';

/** The follow-up states the host posted to the thread's page, in order. */
function followUpStates(a: AnswerPanels, threadId: string): string[] {
  return a.posted
    .filter((p) => p.threadId === threadId)
    .map((p) => (p.message.type === 'followUp' ? p.message.state : p.message.type));
}

/** The end of the next run of `threadId` the ThreadWatcher reports. */
function runEnd(watcher: ThreadWatcher, threadId: string): Promise<ThreadFinished> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`No end of the run of ${threadId} reported in 20 s.`));
    }, 20_000);
    const sub = watcher.onDidFinish((e) => {
      if (e.threadId !== threadId) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(e);
    });
  });
}

/** The message of the last follow-up state posted to the thread's page. */
function lastFollowUpMessage(a: AnswerPanels, threadId: string): string {
  const m = a.posted.filter((p) => p.threadId === threadId).at(-1)?.message;
  return m?.type === 'followUp' ? (m.message ?? '') : '';
}

async function answers(): Promise<AnswerPanels> {
  return (await testCore()).answers;
}

let counter = 0;
async function freshKey(): Promise<string> {
  const key = await control<string>('provisionKey', { plan: 'pro', label: `answer-test-${Date.now()}-${++counter}` });
  await (await api()).keys.set(key, new URL(await emulatorUrl()).origin);
  return key;
}

/** Checks the page: one CSP meta with the nonce, every script external with that nonce, no inline style or handler. */
function checkPage(html: string, nonce: string): void {
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
  assert.ok(csp, 'CSP meta present');
  assert.match(csp, /^default-src 'none'; /);
  assert.ok(csp.includes(`script-src 'nonce-${nonce}'`), 'CSP names the nonce');
  assert.ok(!/'unsafe-|(^|\s)(\*|https:|data:|http:)(\s|;|$)/.test(csp), `no unsafe source or bare scheme: ${csp}`);
  assert.ok(nonce.length >= 16 && /^[A-Za-z0-9]+$/.test(nonce), 'nonce is long and plain');
  const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)];
  assert.equal(scripts.length, 1, 'exactly one script');
  assert.match(scripts[0]![0], new RegExp(`^<script nonce="${nonce}" src="[^"]+/dist/webview\\.js"></script>$`));
  assert.equal(scripts[0]![1], '', 'no inline script');
  assert.ok(!/<style\b/i.test(html), 'no <style>');
  const attrs = attributeNames(html);
  assert.ok(!attrs.has('style'), 'no style attribute');
  assert.deepEqual(
    [...attrs].filter((a) => a.startsWith('on')),
    [],
    'no event-handler attribute',
  );
}

/** Every attribute name used in any tag of the page (values blanked first, so text in them cannot count). */
function attributeNames(html: string): Set<string> {
  const names = new Set<string>();
  for (const tag of html.matchAll(/<[A-Za-z][A-Za-z0-9]*((?:\s+[^\s>"=]+(?:="[^"]*")?)*)\s*\/?>/g))
    for (const a of tag[1]!.replace(/"[^"]*"/g, '""').matchAll(/\s([^\s>"=]+)/g)) names.add(a[1]!.toLowerCase());
  return names;
}

export function answerSuite(): void {
  suite('Answer view', function () {
    this.timeout(60_000);
    let restore: (() => Promise<void>) | undefined;
    let key = '';

    suiteSetup(async () => {
      restore = (await useEmulatorSettings()).restore;
      key = await freshKey();
    });
    suiteTeardown(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await restore?.();
    });

    test('an answer from the emulator opens beside, with a nonce CSP page, header, stats and citation links; a second show reuses the panel', async () => {
      const id = await finishedThread(key, 'Does spaced repetition improve long-term retention in medical students?');
      const a = await answers();
      await a.show(id);
      const page = a.inspect(id);
      assert.ok(page, 'panel open');
      checkPage(page.html, page.nonce);
      // The service's generated title, not the brief.
      assert.match(page.html, new RegExp(`<h1 id="thread-title">${htmlPattern(await threadTitle(key, id))}</h1>`));
      assert.match(page.html, /class="status status-idle">idle</);
      assert.match(
        page.html,
        /<a class="cite" href="#cite-\d+(-\d+)?" data-marker="\d+(\.\d+)?"/,
        'citation markers are links',
      );
      assert.match(page.html, /<li id="cite-1"/, 'references list');
      assert.equal(page.options.enableScripts, true);
      assert.equal(page.options.enableCommandUris, false);
      const roots = (page.options.localResourceRoots ?? []).map((u) => u.path.split('/').pop());
      assert.deepEqual(roots, ['dist', 'media']);
      assert.ok(!page.html.includes(key), 'the key is not in the page');
      await a.show(id);
      assert.equal(a.openThreads().filter((t) => t === id).length, 1);
      const tabs = vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('researchDesk.answer'));
      assert.equal(tabs.length, 1, 'one tab for the thread');
    });

    test('messages from the webview are validated: unknown types and wrong fields are refused; Copy Quote copies the checked quote', async () => {
      const id = await finishedThread(key, 'Is mindfulness training effective for reducing anxiety in adolescents?');
      const a = await answers();
      await a.show(id);
      const before = a.refused.length;
      await a.receive(id, { type: 'runCommand', command: 'workbench.action.quit' });
      await a.receive(id, { type: 'openPaper', n: '1' });
      await a.receive(id, { type: 'openPaper', url: 'https://evil.example/' });
      await a.receive(id, { type: 'copyQuote', marker: '1.1', extra: true });
      await a.receive(id, 'openPaper');
      assert.equal(a.refused.length - before, 5, a.refused.slice(before).join('; '));
      const marker = /data-action="copyQuote" data-marker="(\d+\.\d+)"/.exec(a.inspect(id)!.html)?.[1];
      assert.ok(marker, 'a quote with a Copy Quote button');
      const quoteHtml = new RegExp(`id="cite-${marker.replace('.', '-')}-text">([^<]*)<`).exec(
        a.inspect(id)!.html,
      )?.[1];
      await vscode.env.clipboard.writeText('');
      await a.receive(id, { type: 'copyQuote', marker });
      const copied = await vscode.env.clipboard.readText();
      assert.ok(copied.length > 0, 'something copied');
      assert.ok(
        quoteHtml?.startsWith(copied.slice(0, 20).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;')),
        'the quote shown for that marker',
      );
    });

    test('hostile answers render inert: no script, no handler, no image, only https or # links', async () => {
      const a = await answers();
      const hostile: Thread = {
        thread_id: 'hostile-thread-1',
        title: '<script>document.title="pwned"</script><img src=x onerror=alert(1)>',
        status: 'idle',
        url: 'javascript:alert(1)',
        trace: '<script>alert(1)</script>',
        interactions: [
          {
            interaction_id: 'int-1',
            status: 'idle',
            mode: 'pro',
            response: [
              '# Title <script>window.pwned=1</script>',
              '<img src="https://evil.example/x.png" onerror="window.pwned=1">',
              '<a href="javascript:alert(1)" onclick="window.pwned=1">raw</a> <iframe src="https://evil.example"></iframe>',
              '[js](javascript:alert(1)) [cmd](command:workbench.action.quit) [vs](vscode://file/etc/passwd) [data](data:text/html,<script>1</script>) [file](file:///etc/passwd) [http](http://evil.example) [ok](https://example.org/ok)',
              '![track](https://evil.example/pixel.png) ![local](file:///etc/passwd)',
              'Claim [1.1] and [2] and [9.9].',
            ].join('\n\n'),
            citations: [
              {
                n: 1,
                paper_id: 'p1',
                title: '<b onmouseover=alert(1)>T</b>',
                year: 2020,
                journal: 'J"><script>x</script>',
                url: 'javascript:alert(1)',
                snippets: [{ marker: '[1.1]', quote: '"><img src=x onerror=alert(1)>', section: '<script>s</script>' }],
              },
              {
                n: 2,
                paper_id: 'p2',
                title: 'Safe',
                year: 2021,
                journal: 'K',
                url: 'https://consensus.app/papers/x/0123456789abcdef0123456789abcdef/',
                snippets: [],
              },
            ],
            stats: { retrieved: 10, screened: 5, included: 2 },
          },
        ],
      };
      a.showThreadObject(hostile);
      const page = a.inspect('hostile-thread-1');
      assert.ok(page);
      checkPage(page.html, page.nonce);
      assert.ok(!/<img\b/i.test(page.html), 'no img element');
      assert.ok(!/<iframe\b/i.test(page.html), 'no iframe');
      const hrefs = [...page.html.matchAll(/\shref="([^"]*)"/g)]
        .map((m) => m[1]!)
        .filter((h) => !h.startsWith('https://file+') && !h.includes('vscode-cdn') && !h.includes('vscode-resource'));
      for (const h of hrefs) assert.ok(h.startsWith('#') || h.startsWith('https://'), `bad link ${h}`);
      assert.ok(hrefs.includes('https://example.org/ok'));
      // Linkify may turn a written https address into a link (allowed: https only); never the http one.
      assert.ok(!hrefs.some((h) => h.startsWith('http://')), `no http link: ${hrefs.join(' ')}`);
      assert.ok(!hrefs.some((h) => h.includes('pixel.png')), 'an image URL is not even a link');
      assert.ok(!page.html.includes('javascript:alert(1)"'), 'javascript: never an attribute value');
    });

    test('trace toggle, follow-up (409 while running keeps the draft), earlier interactions and export', async () => {
      const id = await finishedThread(key, 'What is the effect of sleep deprivation on working memory?');
      const a = await answers();
      await a.show(id);
      await a.receive(id, { type: 'toggleTrace', on: true });
      assert.match(
        a.inspect(id)!.html,
        /<section class="trace"[^>]*>.*<pre>[^<]*search/s,
        'trace shown as preformatted text',
      );
      await a.receive(id, { type: 'toggleTrace', on: false });
      assert.ok(!a.inspect(id)!.html.includes('class="trace"'));

      // Follow-up: a run the emulator keeps going until completeRuns.
      await control('setRunOutcome', { threadId: undefined, durationMs: 3_600_000 });
      await a.receive(id, { type: 'followUp', text: 'And in older adults?', mode: 'pro' });
      assert.deepEqual(
        a.posted.filter((p) => p.threadId === id).map((p) => p.message.type === 'followUp' && p.message.state),
        ['sending', 'running'],
      );
      assert.match(a.inspect(id)!.html, /status-running/);
      // A second follow-up while running: 409, explained, draft kept (no 'running' => the page keeps the text).
      await a.receive(id, { type: 'followUp', text: 'And in children?', mode: 'pro' });
      const last = a.posted[a.posted.length - 1]!.message;
      assert.equal(last.type === 'followUp' && last.state, 'failed');
      assert.match(last.type === 'followUp' ? (last.message ?? '') : '', /still running.*kept/);
      const threads = await control<{ threadId: string; interactions: number }[]>('threads');
      assert.equal(threads.find((t) => t.threadId === id)?.interactions, 2, 'the 409 created nothing');
      await control('completeRuns');
      await eventually(
        () => /status-idle/.test(a.inspect(id)!.html) && /<select id="interaction">/.test(a.inspect(id)!.html),
        'the follow-up answer painted',
        200,
      );

      // Earlier interaction.
      const first = /<option value="([^"]+)"/.exec(a.inspect(id)!.html)?.[1];
      assert.ok(first);
      await a.receive(id, { type: 'selectInteraction', interactionId: first });
      assert.match(a.inspect(id)!.html, new RegExp(`<option value="${first}" selected>`));
      const refusedBefore = a.refused.length;
      await a.receive(id, { type: 'selectInteraction', interactionId: 'not-in-this-thread' });
      assert.equal(a.refused.length, refusedBefore + 1);

      // Export to a file: whole Markdown with references.
      const target = vscode.Uri.joinPath(vscode.Uri.file(tmpdir()), `answer-export-${Date.now()}.md`);
      const written = await a.exportMarkdown(id, target);
      assert.equal(written?.toString(), target.toString());
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(target));
      assert.ok(text.startsWith(`# ${await threadTitle(key, id)}\n`), text.slice(0, 200));
      assert.match(text, /\n## References\n/);
      await vscode.workspace.fs.delete(target);
    });

    test('a deep follow-up on the free plan fails with the draft kept (403 explained), nothing created', async () => {
      const free = await control<string>('provisionKey', { plan: 'free', label: `answer-free-${Date.now()}` });
      const desk = await api();
      const origin = new URL(await emulatorUrl()).origin;
      await desk.keys.set(free, origin);
      try {
        const id = await finishedThread(free, 'Do standing desks reduce back pain in office workers?');
        const a = await answers();
        await a.show(id);
        await a.receive(id, { type: 'followUp', text: 'Go deeper please.', mode: 'deep' });
        const mine = a.posted
          .filter((p) => p.threadId === id)
          .map((p) => (p.message.type === 'followUp' ? p.message.state : ''));
        assert.deepEqual(mine, ['sending', 'failed'], 'never "running": the page keeps the draft');
        const threads = await control<{ threadId: string; interactions: number }[]>('threads');
        assert.equal(threads.find((t) => t.threadId === id)?.interactions, 1);
      } finally {
        await desk.keys.set(key, origin);
      }
    });

    test('a deep follow-up from the view on the free plan is refused by the Ask check: nothing sent, the draft kept, the same refusal as the command', async () => {
      const { label, key: mine } = await provisionedKey('answer-free-plan');
      const c = await testCore();
      const origin = new URL(await emulatorUrl()).origin;
      const restorePlan = await setUserSettings({ [Settings.plan]: 'free' });
      try {
        const id = await finishedThread(mine, 'Does green tea lower blood pressure in adults?');
        await c.answers.show(id);
        await c.answers.receive(id, {
          type: 'followUp',
          text: 'A structured report on the dose, please.',
          mode: 'deep',
        });
        assert.deepEqual(
          followUpStates(c.answers, id),
          ['sending', 'failed'],
          'never "running": the page keeps the text',
        );
        assert.match(lastFollowUpMessage(c.answers, id), /paid plan/);
        const draft = c.threads.draft(id);
        assert.equal(
          draft?.input_message,
          'A structured report on the dose, please.',
          'the draft is kept for the thread',
        );
        assert.equal(draft.mode, 'deep');
        assert.equal((await requestsOf(label, 'add_interaction')).length, 0, 'something was sent');
        const fromCommand = await c.threads.followUp(id, 'A structured report on the dose, please.', 'deep');
        assert.equal(fromCommand.outcome, 'refused');
        assert.equal(lastFollowUpMessage(c.answers, id), fromCommand.message, 'the view says what the command says');
        assert.equal((await requestsOf(label, 'add_interaction')).length, 0);
      } finally {
        await restorePlan();
        await (await api()).keys.set(key, origin);
      }
    });

    test('a follow-up from the view is followed by the ThreadWatcher: a failed run offers Retry, which sends it again; the answer repaints when each run ends', async () => {
      const { label, key: mine } = await provisionedKey('answer-follow-watch');
      const c = await testCore();
      const origin = new URL(await emulatorUrl()).origin;
      try {
        const id = await finishedThread(mine, 'Does yoga reduce chronic low back pain?');
        await c.answers.show(id);
        await control('clearRunOutcomes');
        // The follow-up's run fails, once the test says so.
        await control('setRunOutcome', { threadId: id, outcome: 'failed', durationMs: 3_600_000 });
        await c.answers.receive(id, { type: 'followUp', text: 'And in older adults?', mode: 'pro' });
        assert.deepEqual(followUpStates(c.answers, id), ['sending', 'running']);
        assert.ok(c.threadWatcher.isRunning(id), 'the ThreadWatcher follows the follow-up');
        assert.equal(c.threads.draft(id), undefined, 'a sent follow-up leaves no draft');
        assert.match(c.answers.inspect(id)!.html, /status-running/);
        const failed = runEnd(c.threadWatcher, id);
        await control('completeRuns');
        assert.deepEqual(await failed, { threadId: id, status: 'failed' });
        const notice = c.threadWatcher.lastNotice;
        assert.equal(notice?.kind, 'failed');
        assert.equal(notice.threadId, id);
        assert.ok(notice.actions.includes('Retry'), `no Retry: ${notice.actions.join(', ')}`);
        await eventually(() => /status-failed/.test(c.answers.inspect(id)!.html), 'the failed run painted', 200);
        // Retry: the same follow-up to the same thread, followed again; its answer is painted when it ends.
        const ended = runEnd(c.threadWatcher, id);
        const retried = (await c.threadWatcher.retryRun(notice.run!)) as AskOutcome;
        assert.equal(retried.outcome, 'sent', retried.message);
        assert.equal(retried.threadId, id);
        assert.equal(retried.request?.input_message, 'And in older adults?');
        assert.deepEqual(await ended, { threadId: id, status: 'idle' });
        await eventually(() => /status-idle/.test(c.answers.inspect(id)!.html), 'the answer repainted', 200);
        assert.deepEqual(
          (await requestsOf(label, 'add_interaction')).map((r) => r.status),
          [200, 200],
        );
        assert.equal(
          (await control<{ threadId: string; interactions: number }[]>('threads', mine))[0]?.interactions,
          3,
        );
      } finally {
        await (await api()).keys.set(key, origin);
      }
    });

    test('a panel restored after a reload (serializer) renders its thread; a bad state explains itself', async () => {
      const id = await finishedThread(key, 'Does exercise improve sleep quality in older adults?');
      const a = await answers();
      const panel = vscode.window.createWebviewPanel('researchDesk.answer', 'restored', {
        viewColumn: vscode.ViewColumn.Beside,
        preserveFocus: true,
      });
      await a.restore(panel, { threadId: id, draft: 'my unsent question', scrollY: 40 });
      const page = a.inspect(id);
      assert.ok(page, 'restored panel adopted');
      checkPage(page.html, page.nonce);
      assert.match(page.html, new RegExp(`<h1 id="thread-title">${htmlPattern(await threadTitle(key, id))}</h1>`));
      assert.match(page.html, /data-state="[^"]*my unsent question/, 'the draft goes back into the page');
      const bad = vscode.window.createWebviewPanel('researchDesk.answer', 'bad', {
        viewColumn: vscode.ViewColumn.Beside,
        preserveFocus: true,
      });
      await a.restore(bad, { threadId: '../etc' });
      assert.match(bad.webview.html, /could not be restored/);
      assert.ok(!a.openThreads().includes('../etc'));
      bad.dispose();
    });

    test('a panel restored before any key is set says so, shows no rejected-key error, and loads once the key is set', async () => {
      const id = await finishedThread(key, 'Does mindfulness reduce stress in nurses?');
      const a = await answers();
      const desk = await api();
      const origin = new URL(await emulatorUrl()).origin;
      await desk.keys.delete(origin);
      const sinks = observeSinks();
      try {
        const panel = vscode.window.createWebviewPanel('researchDesk.answer', 'restored', {
          viewColumn: vscode.ViewColumn.Beside,
          preserveFocus: true,
        });
        await a.restore(panel, { threadId: id });
        assert.match(panel.webview.html, /Set your API key/);
        assert.ok(
          !sinks.records.some((r) => /rejected|401/i.test(r.text)),
          `nothing was sent, so nothing was rejected: ${JSON.stringify(sinks.records)}`,
        );
        await desk.keys.set(key, origin);
        await eventually(
          () => new RegExp(`<h1 id="thread-title">`).test(a.inspect(id)?.html ?? ''),
          'the answer loaded after the key was set',
        );
        assert.match(a.inspect(id)!.html, new RegExp(htmlPattern(await threadTitle(key, id))));
        panel.dispose();
      } finally {
        sinks.dispose();
        await desk.keys.set(key, origin);
      }
    });

    test('time from opening a finished thread to the answer painted (figure logged, not asserted)', async () => {
      const id = await finishedThread(key, 'Does caffeine improve reaction time in athletes?');
      const a = await answers();
      const t0 = Date.now();
      await a.show(id);
      await eventually(() => (a.readyAt.get(id) ?? 0) >= t0, 'the webview script to report ready', 200);
      console.log(`[bench] answer view: open → painted (script ready) ${a.readyAt.get(id)! - t0} ms`);
    });

    test('Export Answer command with no answer open explains itself and writes nothing', async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await eventually(async () => (await answers()).openThreads().length === 0, 'panels closed');
      const r = await vscode.commands.executeCommand(Commands.exportAnswer);
      assert.equal(r, undefined);
    });
  });
}
