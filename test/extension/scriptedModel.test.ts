/**
 * The test-only scripted model (test/fixtures/scripted-model, installed into every test window) through `vscode.lm`:
 * found by its vendor, it streams the tool call its script names, and a tool result sent back reaches it. The loop it
 * drives (model → our search tool → result → model) is what an agent does with our tools.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { Tools } from '../../src/platform/ids';
import {
  SCRIPTED_MODEL_ID,
  SCRIPTED_VENDOR,
  type ScriptedRequest,
  type ScriptedTurn,
  ScriptedModelCommands,
} from '../fixtures/scripted-model/types';
import { chargedTo, provisionedKey, requestsOf, skipBelowVsCode, useEmulatorKeepingKey, vscodeMinor } from './support';

const HELPER_ID = 'research-desk-tests.scripted-model';

/** The helper provides its model through lm.registerLanguageModelChatProvider, API from VS Code 1.104. */
const HELPER_MIN_MINOR = 104;
const HELPER_WHY = 'the scripted model (test helper) uses lm.registerLanguageModelChatProvider';

/** Skips the suite where VS Code does not load the helper. */
export function skipWithoutScriptedModel(ctx: Mocha.Context): void {
  skipBelowVsCode(ctx, HELPER_MIN_MINOR, HELPER_WHY);
}

/** Whether this VS Code loads the helper (so its commands exist). */
export const scriptedModelLoads = (): boolean => vscodeMinor() >= HELPER_MIN_MINOR;

/** Replaces the model's script and clears what it received. */
export async function setScript(turns: ScriptedTurn[]): Promise<void> {
  await vscode.commands.executeCommand(ScriptedModelCommands.setScript, turns);
}

/** What the model received since the last setScript. */
export async function modelRequests(): Promise<ScriptedRequest[]> {
  return (await vscode.commands.executeCommand<ScriptedRequest[]>(ScriptedModelCommands.requests)) ?? [];
}

/** The scripted model, as a chat participant or agent would select it. */
export async function scriptedModel(): Promise<vscode.LanguageModelChat> {
  const models = await vscode.lm.selectChatModels({ vendor: SCRIPTED_VENDOR });
  assert.equal(models.length, 1, `models of vendor ${SCRIPTED_VENDOR}: ${models.map((m) => m.id).join(', ')}`);
  return models[0]!;
}

/** Everything a response streamed. */
async function collect(response: vscode.LanguageModelChatResponse): Promise<unknown[]> {
  const parts: unknown[] = [];
  for await (const p of response.stream) parts.push(p);
  return parts;
}

const ourTool = (name: string): vscode.LanguageModelToolInformation => {
  const t = vscode.lm.tools.find((x) => x.name === name);
  assert.ok(t, `${name} is not listed`);
  return t;
};

export function scriptedModelSuite(): void {
  suite('The scripted model (test helper) through vscode.lm', () => {
    let restore: (() => Promise<void>) | undefined;
    suiteSetup(async function () {
      skipWithoutScriptedModel(this);
      assert.ok(vscode.extensions.getExtension(HELPER_ID), `${HELPER_ID} is not installed in this window`);
      restore = (await useEmulatorKeepingKey()).restore;
    });
    suiteTeardown(async () => {
      if (scriptedModelLoads()) await setScript([]);
      await restore?.();
    });

    test('selectChatModels finds it by vendor, and sendRequest streams the scripted tool call', async () => {
      const model = await scriptedModel();
      assert.equal(model.id, SCRIPTED_MODEL_ID);
      assert.equal(model.name, 'Scripted Model');
      const tools = [ourTool(Tools.searchPapers), ourTool(Tools.monthlyCalls)];
      const input = { query: 'sleep deprivation memory', limit: 3 };
      await setScript([{ toolCall: { nameEndsWith: '_searchPapers', input, callId: 'c-1' } }]);
      const parts = await collect(
        await model.sendRequest([vscode.LanguageModelChatMessage.User('Find papers on sleep and memory')], { tools }),
      );
      assert.equal(parts.length, 1, 'one part');
      const call = parts[0];
      assert.ok(call instanceof vscode.LanguageModelToolCallPart, 'a tool call');
      assert.deepEqual([call.callId, call.name, call.input], ['c-1', Tools.searchPapers, input]);

      const [received, ...more] = await modelRequests();
      assert.equal(more.length, 0);
      assert.deepEqual(
        received!.tools,
        tools.map((t) => t.name),
      );
      assert.deepEqual(
        received!.messages.map((m) => [m.role, m.text]),
        [['user', 'Find papers on sleep and memory']],
      );
    });

    test('a full loop: its tool call runs our search, and the tool result reaches it', async () => {
      const { label } = await provisionedKey('scripted-loop', 'pro');
      const model = await scriptedModel();
      const tools = [ourTool(Tools.searchPapers), ourTool(Tools.monthlyCalls)];
      const input = { query: 'caffeine alertness', limit: 3 };
      await setScript([{ toolCall: { name: Tools.searchPapers, input } }, { echo: 'ANSWER ', maxChars: 4000 }]);
      const ask = vscode.LanguageModelChatMessage.User('What do studies say about caffeine?');

      const [call] = await collect(await model.sendRequest([ask], { tools }));
      assert.ok(call instanceof vscode.LanguageModelToolCallPart, 'a tool call first');
      const result = await vscode.lm.invokeTool(call.name, { input: call.input, toolInvocationToken: undefined });
      const resultText = result.content
        .filter((p): p is vscode.LanguageModelTextPart => p instanceof vscode.LanguageModelTextPart)
        .map((p) => p.value)
        .join('');
      const firstKey = (JSON.parse(resultText) as { papers: { citeKey: string }[] }).papers[0]?.citeKey;
      assert.ok(firstKey, resultText);

      const answer = await collect(
        await model.sendRequest(
          [
            ask,
            vscode.LanguageModelChatMessage.Assistant([call]),
            vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(call.callId, result.content)]),
          ],
          { tools },
        ),
      );
      const text = answer
        .filter((p): p is vscode.LanguageModelTextPart => p instanceof vscode.LanguageModelTextPart)
        .map((p) => p.value)
        .join('');
      assert.match(text, /^ANSWER /, text);
      assert.ok(text.includes(firstKey), `the answer echoes the tool result: ${text}`);

      const received = await modelRequests();
      assert.equal(received.length, 2);
      const last = received[1]!.messages.at(-1)!;
      assert.deepEqual(
        last.toolResults.map((r) => [r.callId, r.text]),
        [[call.callId, resultText]],
      );
      assert.deepEqual(
        received[1]!.messages[1]!.toolCalls.map((c) => [c.name, c.input]),
        [[Tools.searchPapers, input]],
      );
      assert.equal((await requestsOf(label, 'search')).length, 1, 'one search');
      assert.equal(await chargedTo(label), 1);
    });
  });
}
