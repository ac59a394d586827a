/**
 * The language model tools in the real VS Code against the emulator, through `vscode.lm` as a chat model or agent
 * reaches them: listed with their schemas; a search sends exactly one request with the filters given and charges
 * one call, a repeat is answered from the cache, an invalid input sends nothing; the calls left cost nothing.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { Settings, Tools, Urls } from '../../src/platform/ids';
import {
  api,
  chargedTo,
  emulatorUrl,
  nextEvent,
  provisionedKey,
  requestsOf,
  setUserSettings,
  testCore,
  useEmulatorKeepingKey,
} from './support';

interface SearchToolResult {
  query: string;
  morePapers: boolean;
  callCharged: boolean;
  papers: { n: number; title: string; authors: string[]; year?: number; citeKey: string; doi?: string }[];
}

const invoke = (name: string, input: object): Thenable<vscode.LanguageModelToolResult> =>
  vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });

/** The text a tool returned, parsed as the JSON it says it is. */
function json<T>(result: vscode.LanguageModelToolResult): T {
  const parts = result.content.filter(
    (p): p is vscode.LanguageModelTextPart => p instanceof vscode.LanguageModelTextPart,
  );
  assert.equal(parts.length, 1, 'one text part');
  return JSON.parse(parts[0]!.value) as T;
}

export function toolsSuite(): void {
  suite('Language model tools (vscode.lm) against the emulator', () => {
    let restore: (() => Promise<void>) | undefined;
    suiteSetup(async () => {
      const s = await useEmulatorKeepingKey();
      const restoreCache = await setUserSettings({ [Settings.searchCacheMinutes]: 30 });
      restore = async () => {
        await restoreCache();
        await s.restore();
      };
    });
    suiteTeardown(async () => restore?.());

    test('vscode.lm.tools lists each tool with its schema and tags', () => {
      for (const name of Object.values(Tools)) {
        const tool = vscode.lm.tools.find((t) => t.name === name);
        assert.ok(tool, `${name} is not listed`);
        assert.ok(tool.tags.includes('researchDesk'), `${name}: tags ${tool.tags.join(', ')}`);
        assert.equal((tool.inputSchema as { type?: string } | undefined)?.type, 'object');
      }
      const search = vscode.lm.tools.find((t) => t.name === Tools.searchPapers)!;
      const schema = search.inputSchema as { required: string[]; properties: Record<string, unknown> };
      assert.deepEqual(schema.required, ['query']);
      for (const k of ['query', 'limit', 'study_types', 'sample_size_min', 'sjr_max', 'year_min', 'exclude_preprints'])
        assert.ok(k in schema.properties, `the schema lacks ${k}`);
    });

    test('search: one request with the filters given, one call; the papers carry cite keys and join the recent papers', async () => {
      const { label } = await provisionedKey('tool-search', 'pro');
      const input = {
        query: 'creatine supplementation cognition',
        limit: 5,
        study_types: ['rct'],
        year_min: 2000,
        human: true,
      };
      const out = json<SearchToolResult>(await invoke(Tools.searchPapers, input));
      const sent = await requestsOf(label, 'search');
      assert.equal(sent.length, 1, 'exactly one search request');
      assert.equal(sent[0]!.query['study_types'], 'rct');
      assert.equal(sent[0]!.query['year_min'], '2000');
      assert.equal(sent[0]!.query['human'], 'true');
      assert.equal(sent[0]!.query['page_size'], '5');
      assert.equal(await chargedTo(label), 1);
      assert.equal(out.callCharged, true);
      assert.ok(out.papers.length > 0 && out.papers.length <= 5, `${out.papers.length} papers`);
      for (const p of out.papers) {
        assert.match(p.citeKey, /^[A-Za-z][\w:-]*$/u, `cite key ${p.citeKey}`);
        assert.ok(p.title.length > 0);
        assert.ok(p.authors.length <= 4, 'at most three authors and "et al."');
      }
      const c = await testCore();
      const recentTitles = new Set(c.recentPapers.list().map((p) => p.title));
      for (const p of out.papers) assert.ok(recentTitles.has(p.title), `${p.title} is not among the recent papers`);

      const again = json<SearchToolResult>(await invoke(Tools.searchPapers, input));
      assert.equal((await requestsOf(label, 'search')).length, 1, 'the repeat was answered from the cache');
      assert.equal(again.callCharged, false);
      assert.deepEqual(
        again.papers.map((p) => p.title),
        out.papers.map((p) => p.title),
      );
    });

    test('the confirmation of a search names the query, the filters and the cost; nothing to confirm for the calls left', async () => {
      await provisionedKey('tool-confirm', 'pro');
      const tools = (await testCore()).tools;
      const prepared = tools.prepare(Tools.searchPapers, {
        query: 'sleep **now** [x](command:y)',
        study_types: ['rct'],
      });
      const message = prepared.confirmationMessages?.message;
      const text = typeof message === 'string' ? message : (message?.value ?? '');
      assert.match(text, /sleep/);
      assert.match(text, /one call of your monthly pool/);
      assert.match(text, /rct|RCT|randomi[sz]ed/i, text);
      assert.ok(!text.includes('](command:') && !text.includes('**now**'), `the query is plain text: ${text}`);
      assert.ok(message instanceof vscode.MarkdownString && !message.isTrusted, 'untrusted Markdown');
      assert.equal(tools.prepare(Tools.monthlyCalls, {}).confirmationMessages, undefined);
      assert.equal(tools.prepare(Tools.searchPapers, { limit: 3 }).confirmationMessages, undefined, 'bound to fail');
    });

    test('an invalid input is refused with the field named, and nothing is sent', async () => {
      const { label } = await provisionedKey('tool-invalid', 'pro');
      const bad: [object, RegExp][] = [
        [{}, /query/],
        [{ query: 'sleep', limit: 500 }, /limit/],
        [{ query: 'sleep', study_type: ['rct'] }, /study_type/],
        [{ query: 'sleep', month_min: 3 }, /month_min/],
        [{ query: 'sleep', sjr_max: 9 }, /sjr_max/],
      ];
      for (const [input, field] of bad)
        await assert.rejects(Promise.resolve(invoke(Tools.searchPapers, input)), field, JSON.stringify(input));
      // Searches only: a new key may have the Threads view list its threads meanwhile, which is not the tool's.
      assert.equal((await requestsOf(label, 'search')).length, 0, 'no search for an input bound to fail');
      assert.equal(await chargedTo(label), 0);
    });

    test('the calls left this month cost nothing and agree with the ledger', async () => {
      const { label } = await provisionedKey('tool-calls', 'pro');
      const out = json<{ left: number | string; plan: string; resetDate: string }>(
        await invoke(Tools.monthlyCalls, {}),
      );
      assert.equal((await requestsOf(label, 'search')).length, 0, 'no search');
      assert.equal(await chargedTo(label), 0);
      const s = (await testCore()).usage.snapshot();
      assert.equal(out.left, s.left ?? 'unknown');
      assert.equal(out.resetDate, s.resetDate);
    });
  });

  suite('The MCP server definition (what VS Code is offered)', () => {
    let restore: (() => Promise<void>) | undefined;
    suiteSetup(async () => {
      restore = (await useEmulatorKeepingKey()).restore;
    });
    suiteTeardown(async () => restore?.());

    test("trusted: one server at the user's URL, the key added as a bearer header only for the origin it was saved for; Restricted Mode: none", async () => {
      const mcp = (await api()).mcpServers;
      const { key } = await provisionedKey('mcp-definition', 'pro');
      const emulator = new URL(await emulatorUrl());
      const here = `${emulator.origin}/mcp`;
      const back = await setUserSettings({ [Settings.mcpUrl]: here });
      try {
        const defs = mcp.provideMcpServerDefinitions();
        if (!vscode.workspace.isTrusted) {
          assert.deepEqual(defs, [], 'no server in Restricted Mode');
          assert.equal(
            await mcp.resolveMcpServerDefinition(new vscode.McpHttpServerDefinition('x', vscode.Uri.parse(here))),
            undefined,
          );
          return;
        }
        assert.equal(defs.length, 1);
        assert.equal(defs[0]!.uri.toString(true), here);
        assert.deepEqual(defs[0]!.headers ?? {}, {}, 'no key in the definition VS Code keeps');
        const resolved = await mcp.resolveMcpServerDefinition(defs[0]!);
        assert.equal(resolved?.headers['Authorization'], `Bearer ${key}`);

        // Another origin (the public server's own) gets no key: VS Code's OAuth flow applies there.
        const changed = nextEvent(mcp.onDidChangeMcpServerDefinitions, 'a change of the setting');
        await setUserSettings({ [Settings.mcpUrl]: Urls.defaultMcpUrl });
        await changed;
        const [pub] = mcp.provideMcpServerDefinitions();
        assert.equal(pub?.uri.toString(true), Urls.defaultMcpUrl);
        const pubResolved = await mcp.resolveMcpServerDefinition(pub);
        assert.equal(pubResolved?.headers['Authorization'], undefined, 'the key never leaves its origin');

        // A definition that is not the setting's (a stale one) is not started.
        assert.equal(await mcp.resolveMcpServerDefinition(defs[0]!), undefined);
        // Plain http elsewhere than this computer is refused.
        await setUserSettings({ [Settings.mcpUrl]: 'http://mcp.example.org/mcp' });
        assert.deepEqual(mcp.provideMcpServerDefinitions(), []);
      } finally {
        await back();
      }
    });
  });
}
