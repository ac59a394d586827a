/**
 * Chat flow: @research in VS Code's chat view as a writer uses it, with the scripted test model standing in for
 * Copilot's. The writer asks for evidence in words; the model calls our search tool; VS Code's confirmation names the
 * cost and the writer allows it; the papers appear in the chat with Cite links; one Cite puts `\cite{key}` into the
 * LaTeX paper and the entry into its .bib. The calls the task spent are checked against the minimum (one search) and
 * recorded for the bench (test-results/ui/chat-calls.json). Screenshots test-results/ui/chat-*.png.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineFlow } from '../harness';

const SEARCH = { query: 'creatine supplementation memory', limit: 5, study_types: ['rct'] };
const SCRIPT = [
  { toolCall: { name: 'researchDesk_searchPapers', input: SEARCH } },
  { text: 'These randomized trials test creatine and memory; the list above has a Cite link for each.' },
];

interface Control {
  charges(): { keyLabel: string; calls: number; reason: string }[];
  requests(): { route: string; keyLabel: string | null; query: Record<string, string | string[]> }[];
}

export const flow = defineFlow({
  name: 'chat',
  env: { SCRIPTED_MODEL_SCRIPT: JSON.stringify(SCRIPT) },
  userSettings: {
    'chat.disableAIFeatures': false,
    'workbench.colorTheme': 'Default Light Modern',
    // Otherwise VS Code may first ask in the chat whether to start the MCP servers it knows (ours among them: the
    // mcpOauth flow tests that path), depending on when our provider registered; this flow is about @research.
    'chat.mcp.autostart': 'never',
  },
  files: {
    'paper.tex':
      '\\documentclass{article}\n\\begin{document}\nCreatine may help memory.\n\n\\bibliography{refs}\n\\end{document}\n',
    'refs.bib': '',
  },
  timeoutMs: 240_000,
  async run({ driver, emulator, workspace, check, shot }) {
    const page = driver.page;
    const control = emulator.control as Control;
    const bib = (): string =>
      existsSync(join(workspace, 'refs.bib')) ? readFileSync(join(workspace, 'refs.bib'), 'utf8') : '';
    const chat = page.locator('.interactive-session').first();
    const proKey = emulator.keys.pro!;
    const spent = (): number =>
      control
        .charges()
        .filter((c) => c.keyLabel === 'demo:pro')
        .reduce((s, c) => s + c.calls, 0);

    await check('with a key set, the LaTeX paper is open with the cursor after the claim', async () => {
      await driver.openViewContainer('researchDesk');
      await driver.runCommand('Research Desk: Set API Key');
      await driver.answerInput(proKey, { password: true });
      await page.keyboard.press('Control+P');
      await driver.quickInputBox().fill('paper.tex');
      await page
        .locator('.quick-input-list .monaco-list-row', { hasText: 'paper.tex' })
        .first()
        .waitFor({ state: 'visible', timeout: driver.timeoutMs });
      await page.keyboard.press('Enter');
      const line = page.locator('.monaco-editor .view-line', { hasText: 'Creatine may help memory.' }).first();
      await line.waitFor({ state: 'visible', timeout: driver.timeoutMs });
      await line.click();
      await page.keyboard.press('End');
      await page.keyboard.press('ArrowLeft');
      await driver.clearNotifications();
    });

    await check('the chat opens with the model ready', async () => {
      await driver.runCommand('Chat: Open Chat');
      await chat.waitFor({ state: 'visible', timeout: driver.timeoutMs });
      await driver.waitUntil(
        'the model picker to offer the scripted model',
        async () =>
          (await chat.locator('.chat-input-toolbars, .interactive-input-part').first().innerText()).includes(
            'Scripted Model',
          ),
        60_000,
      );
      await shot('01-chat-open');
    });

    const before = spent();
    await check(
      'a prompt to @research: the model calls the search tool and VS Code asks first, naming the cost',
      async () => {
        const input = chat.locator('.interactive-input-part .monaco-editor').first();
        const prompt = '@research find randomized trials on creatine and memory';
        const inputText = async (): Promise<string> =>
          (await input.locator('.view-lines').innerText())
            .replace(/\u00a0/g, ' ')
            .replace(/\s+/g, ' ')
            .trim();
        await input.click();
        // Typed as a writer types, and sent only once the input holds the whole prompt with no suggestion list open:
        // an Enter that lands while the participant list '@' opens is still showing picks an entry of that list
        // (a fresh-clone run once sent only '@agent').
        await page.keyboard.type(prompt, { delay: 15 });
        await driver.waitUntil(
          'the whole prompt in the chat input, no suggestion list open',
          async () =>
            (await inputText()) === prompt && !(await page.locator('.suggest-widget.visible').count())
              ? true
              : undefined,
          15_000,
        );
        await page.keyboard.press('Enter');
        const request = chat.locator('.interactive-request', { hasText: 'find randomized trials' }).first();
        await request.waitFor({ state: 'visible', timeout: 15_000 }).catch(async (e: unknown) => {
          throw new Error(`the prompt was not sent; the input holds: ${await inputText()}`, { cause: e });
        });
        const allow = page.locator('.interactive-session .monaco-button:visible', { hasText: /^Allow/ }).first();
        await allow.waitFor({ state: 'visible', timeout: 60_000 }).catch(async (e: unknown) => {
          const shown = (await chat.innerText()).replace(/\s+/g, ' ').slice(0, 600);
          throw new Error(`no Allow button; the chat shows: ${shown}`, { cause: e });
        });
        const widget = (await chat.innerText()).replace(/\s+/g, ' ');
        assert.match(widget, /Search papers\?/);
        assert.match(widget, /one call of your monthly pool/);
        assert.equal(spent(), before, 'nothing was spent before the writer allowed it');
        await shot('02-confirmation');
        await allow.click();
      },
    );

    await check('the papers appear in the chat with Cite links; the call was the only one spent', async () => {
      const cite = chat.locator('.interactive-response a', { hasText: /^Cite$/ }).first();
      await cite.waitFor({ state: 'visible', timeout: 60_000 });
      await driver.waitUntil('the model’s closing words', async () =>
        (await chat.innerText()).includes('the list above has a Cite link for each'),
      );
      const text = (await chat.innerText()).replace(/\s+/g, ' ');
      assert.match(text, /Randomized controlled trial/);
      const searches = control.requests().filter((r) => r.route === 'search' && r.keyLabel === 'demo:pro');
      assert.equal(searches.length, 1, 'one search');
      assert.equal(searches[0]!.query['study_types'], 'rct');
      assert.equal(spent() - before, 1);
      await shot('03-papers-in-chat');
    });

    await check(
      'Cite on a paper in the chat writes \\cite{key} into the paper and its entry into refs.bib',
      async () => {
        // The last paper's link, in view at the end of the response (the first ones are scrolled under the header).
        const cite = chat.locator('.interactive-response a', { hasText: /^Cite$/ }).last();
        await cite.click();
        const cited = page.locator('.monaco-editor .view-line', { hasText: '\\cite{' }).first();
        await cited.waitFor({ state: 'visible', timeout: driver.timeoutMs });
        const key = /\\cite\{([^}]+)\}/.exec((await cited.innerText()).replace(/\u00a0/g, ' '))?.[1];
        assert.ok(key, 'a key in the citation');
        await driver.waitUntil('refs.bib with the entry', () =>
          Promise.resolve(bib().includes(`{${key},`) ? true : undefined),
        );
        assert.equal(spent() - before, 1, 'citing spends nothing');
        await shot('04-cited-from-chat');
        // For the bench: calls this agent task spent, against the fewest it could (one search).
        writeFileSync(
          join(process.cwd(), 'test-results', 'ui', 'chat-calls.json'),
          `${JSON.stringify({ task: 'find RCTs on creatine and memory, cite one', calls: spent() - before, minimum: 1 })}\n`,
        );
      },
    );
  },
});
