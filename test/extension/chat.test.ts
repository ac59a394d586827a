/**
 * The chat's tools beyond search, and the @research participant's commands, in the real VS Code against the emulator:
 * each asserts what reached the emulator (exactly the calls needed, nothing billed that was not asked for) and what
 * reached the writer's document. The participant is driven through its handler with a stream that records what it
 * writes; the chat view itself is driven in the UI flow.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ResearchChatMetadata } from '../../src/chat/modelLoop';
import { Settings, Tools } from '../../src/platform/ids';
import {
  chargedTo,
  control,
  emulatorUrl,
  openDoc,
  provisionedKey,
  readDisk,
  requestsOf,
  setUserSettings,
  testCore,
  useEmulatorKeepingKey,
  workspaceDir,
  writeFile,
} from './support';
import { modelRequests, scriptedModelLoads, setScript, skipWithoutScriptedModel } from './scriptedModel.test';

const invoke = (name: string, input: object): Thenable<vscode.LanguageModelToolResult> =>
  vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });

/** The JSON a tool returned. */
function json<T>(result: vscode.LanguageModelToolResult): T {
  const part = result.content.find((p) => p instanceof vscode.LanguageModelTextPart);
  assert.ok(part, 'a text part');
  return JSON.parse(part.value) as T;
}

interface Papers {
  papers: { n: number; id: string; title: string; citeKey: string; doi?: string; abstract?: string }[];
}

/** What the participant wrote: Markdown, buttons, references and progress messages, in order. */
class RecordingStream {
  readonly markdown: string[] = [];
  readonly buttons: vscode.Command[] = [];
  readonly references: string[] = [];
  readonly progress: string[] = [];
  readonly trusted: (readonly string[] | boolean | undefined)[] = [];
  get text(): string {
    return this.markdown.join('\n');
  }
  asStream(): vscode.ChatResponseStream {
    const s: Partial<vscode.ChatResponseStream> = {
      markdown: (v) => {
        this.markdown.push(typeof v === 'string' ? v : v.value);
        const t = typeof v === 'string' ? undefined : v.isTrusted;
        this.trusted.push(typeof t === 'object' ? t.enabledCommands : t);
      },
      button: (c) => void this.buttons.push(c),
      reference: (r) => void this.references.push(r instanceof vscode.Uri ? r.toString() : JSON.stringify(r)),
      progress: (m) => void this.progress.push(m),
      anchor: () => undefined,
      filetree: () => undefined,
      push: () => undefined,
    };
    return s as vscode.ChatResponseStream;
  }
}

/** A request to the participant as VS Code builds it, for the commands that need no model. */
function chatRequest(command: string | undefined, prompt: string): vscode.ChatRequest {
  return {
    prompt,
    command,
    references: [],
    toolReferences: [],
    toolInvocationToken: undefined as never,
    model: undefined as never,
  };
}

const noHistory = { history: [] } as unknown as vscode.ChatContext;
const none = new vscode.CancellationTokenSource().token;

/** Threads of a key's label created at the emulator. */
async function threadsCreated(label: string): Promise<number> {
  return (await requestsOf(label, 'create_thread')).length;
}

export function chatSuite(): void {
  suite('Chat: the paper, citation and research-agent tools against the emulator', () => {
    let restore: (() => Promise<void>) | undefined;
    suiteSetup(async () => {
      const s = await useEmulatorKeepingKey();
      const back = await setUserSettings({ [Settings.searchCacheMinutes]: 30 });
      restore = async () => {
        await back();
        await s.restore();
      };
    });
    suiteTeardown(async () => restore?.());

    test('paper details: free, by id, cite key or DOI of papers a search returned; excerpts when the search asked', async () => {
      const { label } = await provisionedKey('tool-details', 'pro');
      const found = json<Papers>(
        await invoke(Tools.searchPapers, { query: 'creatine cognition', limit: 5, excerpts: true }),
      );
      assert.equal((await requestsOf(label, 'search'))[0]?.query['include_full_text_chunks'], 'true');
      const [a, b] = found.papers;
      assert.ok(a && b);
      const refs = [a.id, b.citeKey, ...(a.doi ? [`https://doi.org/${a.doi}`] : [])];
      const details = json<{ papers: Record<string, unknown>[]; notFound?: string[] }>(
        await invoke(Tools.paperDetails, { papers: [...refs, 'no-such-paper'] }),
      );
      assert.deepEqual(
        details.papers.map((p) => p['title']),
        [a.title, b.title, ...(a.doi ? [a.title] : [])],
      );
      assert.deepEqual(details.notFound, ['no-such-paper']);
      assert.ok(details.papers.every((p) => typeof p['abstract'] === 'string' && p['abstract'].length > 0));
      const excerpts = details.papers.flatMap((p) => (p['excerpts'] as { passage: string }[] | undefined) ?? []);
      assert.ok(excerpts.length > 0, 'the emulator gives excerpts for open-access papers');
      assert.equal((await requestsOf(label, 'search')).length, 1, 'details cost nothing');
      await assert.rejects(Promise.resolve(invoke(Tools.paperDetails, { papers: ['never-seen'] })), /search first/);
    });

    test('excerpts on the free plan are refused before sending', async () => {
      const { label } = await provisionedKey('tool-free-excerpts', 'free');
      const c = await testCore();
      await setUserSettings({ [Settings.plan]: 'free' }).then(async (back) => {
        try {
          assert.equal(c.usage.isFreePlan(), true);
          await assert.rejects(
            Promise.resolve(invoke(Tools.searchPapers, { query: 'sleep', excerpts: true })),
            /paid plan/,
          );
        } finally {
          await back();
        }
      });
      assert.equal((await requestsOf(label, 'search')).length, 0);
    });

    test('insert citations: the same path as Insert Citation, into the open document and its bibliography; no call', async () => {
      const { label } = await provisionedKey('tool-cite', 'pro');
      const found = json<Papers>(await invoke(Tools.searchPapers, { query: 'sleep deprivation memory', limit: 3 }));
      const searches = (await requestsOf(label, 'search')).length;
      const dir = workspaceDir('chat-cite');
      const bib = vscode.Uri.joinPath(dir, 'refs.bib');
      await writeFile(bib, '');
      await openDoc(vscode.Uri.joinPath(dir, 'paper.tex'), 'Sleep matters|.\n\\bibliography{refs}\n');
      const [a, b] = found.papers;
      const out = json<{ cited: string[]; bibliography: string; entriesAdded: number }>(
        await invoke(Tools.insertCitations, { papers: [a!.id, b!.citeKey] }),
      );
      assert.equal(out.cited.length, 2);
      assert.equal(out.entriesAdded, 2);
      assert.match(out.bibliography, /refs\.bib$/u);
      const editor = vscode.window.activeTextEditor!;
      assert.equal(editor.document.lineAt(0).text, `Sleep matters~\\cite{${out.cited.join(',')}}.`);
      const written = (await readDisk(bib)) ?? '';
      for (const key of out.cited) assert.match(written, new RegExp(`@\\w+\\{${key},`, 'u'));
      assert.equal((await requestsOf(label, 'search')).length, searches, 'citing sends nothing');
      await assert.rejects(Promise.resolve(invoke(Tools.insertCitations, { papers: ['never-seen'] })), /search first/);
      assert.equal(editor.document.lineAt(0).text, `Sleep matters~\\cite{${out.cited.join(',')}}.`, 'unchanged');
    });

    test('ask the research agent: one thread with the filters and papers given, its cited answer; reading it is free', async () => {
      const { label, key } = await provisionedKey('tool-ask', 'pro');
      const asking = invoke(Tools.askAgent, {
        question: 'Does creatine supplementation improve memory in healthy adults?',
        filters: { study_types: ['rct'], year_min: 2010 },
        waitSeconds: 60,
      });
      // The emulator's runs take a while even at speed; finish the one created as soon as it exists.
      const started = Date.now();
      while ((await threadsCreated(label)) === 0 && Date.now() - started < 20_000)
        await new Promise((r) => setTimeout(r, 200));
      await control('completeRuns');
      const answer = json<{
        threadId: string;
        status: string;
        answer: string;
        papers: { n: number; id?: string; title: string; quotes: unknown[] }[];
      }>(await asking);
      assert.equal(answer.status, 'idle');
      assert.match(answer.answer, /\[\d+(\.\d+)?\]/u, 'the answer keeps its citation markers');
      assert.ok(answer.papers.length > 0 && answer.papers.every((p) => p.title && p.id));
      assert.equal(await threadsCreated(label), 1, 'one thread');
      // The agent's log names the filters it searched under.
      const traced = await fetch(`${await emulatorUrl()}/v1/threads/${answer.threadId}?include_trace=true`, {
        headers: { 'x-api-key': key },
      });
      assert.match(
        ((await traced.json()) as { trace?: string }).trace ?? '',
        /filters: year_min=2010, study_types=rct/u,
      );
      const charged = await chargedTo(label);
      assert.ok(charged >= 1, 'the thread was charged');

      const again = json<{ threadId: string; answer: string }>(
        await invoke(Tools.readThread, { threadId: answer.threadId }),
      );
      assert.equal(again.answer, answer.answer);
      const listed = json<{ threads: { threadId: string }[] }>(await invoke(Tools.listThreads, { limit: 5 }));
      assert.ok(listed.threads.some((t) => t.threadId === answer.threadId));
      assert.equal(await chargedTo(label), charged, 'reading and listing are free');
      assert.equal(await threadsCreated(label), 1);
      // The papers the answer cites can be read and cited by their ids now.
      const cited = json<{ papers: { title: string }[] }>(
        await invoke(Tools.paperDetails, { papers: [answer.papers[0]!.id!] }),
      );
      assert.equal(cited.papers[0]?.title, answer.papers[0]!.title);
    });

    test('ask: refused before sending for an input bound to fail or deep mode on the free plan; a short wait returns the thread id', async () => {
      const { label } = await provisionedKey('tool-ask-refused', 'pro');
      for (const input of [{}, { question: 'q', mode: 'fast' }, { question: 'q', filters: { month_min: 2 } }])
        await assert.rejects(Promise.resolve(invoke(Tools.askAgent, input)), /Invalid input/);
      const back = await setUserSettings({ [Settings.plan]: 'free' });
      try {
        await assert.rejects(Promise.resolve(invoke(Tools.askAgent, { question: 'q?', mode: 'deep' })), /paid plan/);
      } finally {
        await back();
      }
      assert.equal(await threadsCreated(label), 0, 'nothing sent');
      await control('setRunOutcome', { durationMs: 600_000 });
      const running = json<{ threadId: string; status: string; note: string }>(
        await invoke(Tools.askAgent, { question: 'What is known about naps and learning?', waitSeconds: 0 }),
      );
      assert.equal(running.status, 'running');
      assert.match(running.threadId, /^[\w-]+$/u);
      assert.match(running.note, /read-thread/u);
      assert.equal(await threadsCreated(label), 1);
      await control('completeRuns');
    });
  });

  suite('Chat: the @research participant’s commands', () => {
    let restore: (() => Promise<void>) | undefined;
    suiteSetup(async () => {
      const s = await useEmulatorKeepingKey();
      const back = await setUserSettings({ [Settings.searchCacheMinutes]: 30 });
      restore = async () => {
        await back();
        await s.restore();
      };
    });
    suiteTeardown(async () => restore?.());

    test('/search: one call, the papers numbered with Cite links to Insert Citation only; /cite by id cites them', async () => {
      const { label } = await provisionedKey('chat-search', 'pro');
      const c = await testCore();
      const s = new RecordingStream();
      const result = await c.participant.handle(
        chatRequest('search', 'creatine memory'),
        noHistory,
        s.asStream(),
        none,
      );
      assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
      assert.equal((await requestsOf(label, 'search')).length, 1);
      const meta = result.metadata as ResearchChatMetadata;
      assert.equal(meta.command, 'search');
      assert.ok(meta.papers && meta.papers.length > 0 && meta.papers.length <= 10);
      assert.match(s.text, /1 call used/u);
      assert.match(s.text, /^1\. \*\*\[/mu, 'a numbered list with linked titles');
      assert.ok(s.text.includes('command:researchDesk.insertCitation?'));
      assert.ok(
        s.trusted.every(
          (t) => t === undefined || (Array.isArray(t) && t.every((c2: string) => c2.startsWith('researchDesk.'))),
        ),
        'only our own commands are trusted',
      );
      assert.ok(s.references.length > 0 && s.references.every((r) => r.startsWith('https://')));

      const dir = workspaceDir('chat-participant');
      await writeFile(vscode.Uri.joinPath(dir, 'refs.bib'), '');
      await openDoc(vscode.Uri.joinPath(dir, 'draft.md'), '---\nbibliography: refs.bib\n---\nCreatine helps|.\n');
      const s2 = new RecordingStream();
      const cited = await c.participant.handle(chatRequest('cite', meta.papers[0]!), noHistory, s2.asStream(), none);
      assert.equal(cited.errorDetails, undefined, cited.errorDetails?.message);
      assert.match(vscode.window.activeTextEditor!.document.lineAt(3).text, /^Creatine helps \[@[\w:.-]+\]\.$/u);
      assert.match(s2.text, /Cited/u);
      assert.equal((await requestsOf(label, 'search')).length, 1, 'citing sends nothing');

      // A number with no list before it says what to do and cites nothing.
      const s3 = new RecordingStream();
      const wrong = await c.participant.handle(chatRequest('cite', '7'), noHistory, s3.asStream(), none);
      assert.match(wrong.errorDetails?.message ?? '', /search first/u);
    });

    test('/budget: the calls left, free', async () => {
      const { label } = await provisionedKey('chat-budget', 'pro');
      const c = await testCore();
      const s = new RecordingStream();
      await c.participant.handle(chatRequest('budget', ''), noHistory, s.asStream(), none);
      // As the reader sees it: Markdown escapes removed.
      const shown = s.text.replace(/\\(.)/gu, '$1');
      assert.match(shown, /Calls left this month/u);
      assert.ok(shown.includes(`resets on ${c.usage.snapshot().resetDate}`), shown);
      // A run an earlier test left (the agent tool's short wait) is polled in the background with whatever key is set:
      // such a poll may land here, and costs nothing. /budget itself asks for nothing but the threads list.
      const sent = (await requestsOf(label)).filter((r) => r.route !== 'list_threads' && r.route !== 'get_thread');
      assert.deepEqual(
        sent.map((r) => `${r.method} ${r.route} ${r.status}`),
        [],
        'nothing but the threads list was asked with the key',
      );
    });

    test('/ask: one thread, the progress said, the cited answer with its references and buttons', async () => {
      const { label } = await provisionedKey('chat-ask', 'pro');
      const c = await testCore();
      const s = new RecordingStream();
      const handling = c.participant.handle(
        chatRequest('ask', 'Does exercise improve sleep quality in older adults?'),
        noHistory,
        s.asStream(),
        none,
      );
      const started = Date.now();
      while ((await threadsCreated(label)) === 0 && Date.now() - started < 20_000)
        await new Promise((r) => setTimeout(r, 200));
      await control('completeRuns');
      const result = await handling;
      assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
      const meta = result.metadata as ResearchChatMetadata;
      assert.match(meta.threadId ?? '', /^[\w-]+$/u);
      assert.ok(s.progress.some((p) => /research agent/u.test(p)));
      assert.match(s.text, /\*\*References\*\*/u);
      assert.deepEqual(
        s.buttons.map((b) => b.command),
        ['researchDesk.openThread', 'researchDesk.insertAnswer'],
      );
      assert.deepEqual(s.buttons[0]?.arguments, [meta.threadId]);
      assert.equal(await threadsCreated(label), 1);
      // Empty: told how, nothing sent.
      const empty = new RecordingStream();
      await c.participant.handle(chatRequest('ask', '  '), noHistory, empty.asStream(), none);
      assert.match(empty.text, /after \/ask/u);
      assert.equal(await threadsCreated(label), 1);
    });
  });
}

/** Sends a prompt to the chat view as a person would (the chat picks its model; the scripted one here). */
async function sendToChat(query: string): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.chat.open', { query, isPartialQuery: false });
}

/**
 * The participant's result for the next request that lands, within a time limit. With `allow`, a tool call waiting
 * for the writer's confirmation in the chat is allowed, as a person clicks Allow (the chat's own command).
 */
async function nextResult(
  c: Awaited<ReturnType<typeof testCore>>,
  before: unknown,
  what: string,
  allow = false,
): Promise<vscode.ChatResult> {
  const started = Date.now();
  while (Date.now() - started < 25_000) {
    if (c.participant.lastResult && c.participant.lastResult !== before) return c.participant.lastResult;
    if (allow) await vscode.commands.executeCommand('workbench.action.chat.acceptTool');
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`No response of @research to ${what} within 25 s.`);
}

export function chatViewSuite(): void {
  suite('Chat: @research in the real chat view (the scripted model)', () => {
    let restore: (() => Promise<void>) | undefined;
    suiteSetup(async function () {
      // The chat needs a model: the scripted one.
      skipWithoutScriptedModel(this);
      this.timeout(120_000);
      // A request sent before the chat has resolved its models is dropped: send a free one until it is answered.
      const c = await testCore();
      let answered = false;
      for (let i = 0; i < 10 && !answered; i++) {
        const before = c.participant.lastResult;
        await sendToChat('@research /budget');
        for (let t = 0; t < 40 && !answered; t++) {
          await new Promise((r) => setTimeout(r, 250));
          answered = c.participant.lastResult !== before;
        }
      }
      assert.ok(answered, 'the chat view never passed a request to @research');
      const s = await useEmulatorKeepingKey();
      const back = await setUserSettings({ [Settings.searchCacheMinutes]: 30 });
      restore = async () => {
        await back();
        await s.restore();
      };
    });
    suiteTeardown(async () => {
      if (scriptedModelLoads()) await setScript([]);
      await restore?.();
    });

    test('a prompt reaches the model with our tools; its tool call runs through VS Code (one search, one call) and the papers are shown', async () => {
      const { label } = await provisionedKey('chat-view-model', 'pro');
      const c = await testCore();
      const input = { query: 'creatine supplementation memory', limit: 4, study_types: ['rct'] };
      await setScript([{ toolCall: { name: Tools.searchPapers, input } }, { echo: 'Found: ' }]);
      const before = c.participant.lastResult;
      await sendToChat('@research find randomized trials on creatine and memory');
      const result = await nextResult(c, before, 'a free prompt', true);
      assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
      const meta = result.metadata as ResearchChatMetadata;
      const seen = await modelRequests();
      assert.equal(meta.command, 'model');
      assert.ok(
        meta.papers && meta.papers.length > 0 && meta.papers.length <= 4,
        `${JSON.stringify(meta)}; the model answered ${JSON.stringify(seen.map((r) => r.response))}, tool results ${JSON.stringify(seen.flatMap((r) => r.messages.flatMap((m) => m.toolResults))).slice(0, 800)}`,
      );
      const sent = await requestsOf(label, 'search');
      assert.equal(sent.length, 1, 'one search');
      assert.equal(sent[0]!.query['study_types'], 'rct');
      assert.equal(await chargedTo(label), 1);
      assert.equal(seen.length, 2, 'the model was asked twice: for the tool call, then with its result');
      assert.ok(seen[0]!.tools.includes(Tools.searchPapers) && seen[0]!.tools.includes(Tools.insertCitations));
      assert.ok(
        !seen[0]!.tools.some((t) => !t.startsWith('researchDesk_')),
        `only our tools: ${seen[0]!.tools.join(', ')}`,
      );
      const results = seen[1]!.messages.flatMap((m) => m.toolResults);
      assert.equal(results.length, 1);
      assert.match(results[0]!.text, /"citeKey"/);
    });

    test('/ask in the chat view, then a plain prompt: a follow-up to the same thread (its history carries it)', async () => {
      const { label } = await provisionedKey('chat-view-followup', 'pro');
      const c = await testCore();
      let before = c.participant.lastResult;
      await sendToChat('@research /ask Does creatine improve memory in vegetarians?');
      while ((await threadsCreated(label)) === 0) await new Promise((r) => setTimeout(r, 200));
      await control('completeRuns');
      const asked = await nextResult(c, before, '/ask');
      assert.equal(asked.errorDetails, undefined, asked.errorDetails?.message);
      const threadId = (asked.metadata as ResearchChatMetadata).threadId;
      assert.match(threadId ?? '', /^[\w-]+$/u);

      before = asked;
      await sendToChat('@research And in older adults?');
      const started = Date.now();
      while ((await requestsOf(label, 'add_interaction')).length === 0 && Date.now() - started < 30_000)
        await new Promise((r) => setTimeout(r, 200));
      await control('completeRuns');
      const followed = await nextResult(c, before, 'the follow-up');
      assert.equal(followed.errorDetails, undefined, followed.errorDetails?.message);
      assert.equal((followed.metadata as ResearchChatMetadata).threadId, threadId, 'the same thread');
      assert.equal(await threadsCreated(label), 1, 'no second thread');
      assert.equal((await requestsOf(label, 'add_interaction')).length, 1, 'one follow-up');
    });
  });
}
