/**
 * Getting Started walkthrough: found among VS Code's walkthroughs, it walks a new writer through the key (or the
 * local emulator), searching, filtering, citing and the research agent; the key step is done once a key is set.
 * Screenshots test-results/ui/walkthrough-*.png.
 */
import assert from 'node:assert/strict';
import { defineFlow } from '../harness';

export const flow = defineFlow({
  name: 'walkthrough',
  userSettings: { 'workbench.colorTheme': 'Default Light Modern' },
  async run({ driver, emulator, check, shot }) {
    const page = driver.page;
    const walkthrough = page.locator('.gettingStartedContainer').first();

    await check(
      'Welcome: Open Walkthrough offers Get Started with Research Desk, and it opens on the key step',
      async () => {
        await driver.openViewContainer('researchDesk');
        await driver.runCommand('Welcome: Open Walkthrough...');
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get Started with Research Desk' });
        await row.first().waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await row.first().click();
        await walkthrough.waitFor({ state: 'visible', timeout: driver.timeoutMs });
        const text = await driver.waitUntil('the steps', async () => {
          const t = await walkthrough.innerText();
          return /Set your API key/.test(t) ? t : undefined;
        });
        for (const step of ['Search papers', 'Filter by study design', 'Cite what you find', 'Ask the research agent'])
          assert.ok(text.includes(step), `no step "${step}" in: ${text.slice(0, 500)}`);
        assert.ok(/Use the Local Emulator/.test(text), 'the emulator is offered with the key');
        await shot('01-steps');
      },
    );

    await check('setting a key completes the key step', async () => {
      // A done step's checkbox turns into a filled check.
      const done = page
        .locator('.getting-started-step', { hasText: 'Set your API key' })
        .locator('.codicon-pass-filled, .complete');
      assert.equal(await done.count(), 0, 'the key step was done before any key');
      await driver.runCommand('Research Desk: Set API Key');
      await driver.answerInput(emulator.keys.pro!, { password: true });
      await driver.waitUntil('the key step marked done', async () => ((await done.count()) > 0 ? true : undefined));
      await shot('02-key-step-done');
    });
  },
});
