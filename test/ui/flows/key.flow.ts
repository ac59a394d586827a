/**
 * Key flow: the API key as a person handles it. Open the Research view from
 * the activity bar (welcome view), Set API Key from the palette into a password box, Test
 * Connection (notification reports success), Clear API Key (welcome view is back).
 */
import assert from 'node:assert/strict';
import { defineFlow } from '../harness';

const VIEW = 'researchDesk.results';
const THREADS = 'researchDesk.threads';

export const flow = defineFlow({
  name: 'key',
  async run({ driver, emulator, check, shot }) {
    await check('the Research view opens from the activity bar', async () => {
      await driver.openViewContainer('researchDesk');
      await driver.viewPane(VIEW).waitFor({ state: 'visible', timeout: driver.timeoutMs });
    });

    await check('without a key the welcome view offers Set API Key, Get a key and the local emulator', async () => {
      const buttons = await driver.waitUntil('welcome buttons', async () => {
        const b = await driver.welcomeButtons(VIEW);
        return b.length > 0 ? b : undefined;
      });
      assert.ok(
        buttons.some((b) => /set api key/i.test(b)),
        `buttons: ${buttons.join(', ')}`,
      );
      assert.ok(
        buttons.some((b) => /get (a|an api) key/i.test(b)),
        `buttons: ${buttons.join(', ')}`,
      );
      assert.ok(
        buttons.some((b) => /emulator/i.test(b)),
        `buttons: ${buttons.join(', ')}`,
      );
      // The Threads view asks for the key too, instead of listing (and showing a 401 sentence).
      const threads = await driver.waitUntil('the Threads welcome buttons', async () => {
        const b = await driver.welcomeButtons(THREADS);
        return b.length > 0 ? b : undefined;
      });
      assert.ok(
        threads.some((b) => /set api key/i.test(b)),
        `Threads buttons: ${threads.join(', ')}`,
      );
      assert.ok(!threads.some((b) => /ask the research agent/i.test(b)), `Threads buttons: ${threads.join(', ')}`);
      await shot('01-welcome-no-key');
    });

    await check(
      'Set API Key checks a key before keeping it: a mistyped one is refused and the box stays open',
      async () => {
        await driver.runCommand('Research Desk: Set API Key');
        const box = driver.quickInputBox();
        await box.waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await box.fill('custom-key-xyz');
        await box.press('Enter');
        const message = await driver.waitUntil('the refusal under the box', async () => {
          const m = await driver.inputMessage();
          return /rejected this key/i.test(m) ? m : undefined;
        });
        assert.match(message, /401/);
        assert.ok(await box.isVisible(), 'the box stays open for another try');
        await shot('02a-mistyped-key-refused');
        // Nothing was stored: the welcome view still asks for a key.
        await driver.closeQuickInput();
        const b = await driver.welcomeButtons(VIEW);
        assert.ok(
          b.some((x) => /set api key/i.test(x)),
          `buttons: ${b.join(', ')}`,
        );
      },
    );

    await check('Set API Key asks for the key in a password box and stores it', async () => {
      await driver.runCommand('Research Desk: Set API Key');
      await driver.answerInput(emulator.keys.pro!, {
        password: true,
        expectTitle: /Set API Key/,
        beforeConfirm: async () => {
          // The screenshot must show dots, never the key.
          await shot('02-password-input');
        },
      });
      // The welcome view no longer asks for a key, and offers no big Clear API Key button either (it is in the
      // view's menu, and gives an Undo).
      const shown = await driver.waitUntil('the welcome view to stop offering Set API Key', async () => {
        const b = await driver.welcomeButtons(VIEW);
        return b.some((x) => /search papers/i.test(x)) && !b.some((x) => /set api key/i.test(x)) ? b : undefined;
      });
      assert.ok(!shown.some((x) => /clear api key/i.test(x)), `buttons: ${shown.join(', ')}`);
      // The Threads view (no threads yet) now offers to ask the agent.
      await driver.waitUntil('the Threads welcome to offer Ask the Research Agent', async () => {
        const b = await driver.welcomeButtons(THREADS);
        return b.some((x) => /ask the research agent/i.test(x)) && !b.some((x) => /set api key/i.test(x));
      });
    });

    await check('Test Connection reports success against the emulator', async () => {
      await driver.clearNotifications();
      await driver.runCommand('Research Desk: Test Connection');
      const n = await driver.waitForNotification(/\S/, 30_000);
      await shot('03-test-connection');
      assert.notEqual(n.severity, 'error', `error notification: ${n.message}`);
      assert.match(n.message, /connected|works|success/i, n.message);
      assert.ok(n.message.includes(new URL(emulator.url).host), `should name the emulator address: ${n.message}`);
      assert.ok(!n.message.includes(emulator.keys.pro!), 'the key must never be shown');
    });

    await check('Clear API Key brings the welcome view back', async () => {
      await driver.clearNotifications();
      await driver.runCommand('Research Desk: Clear API Key');
      const undo = await driver.waitForNotification(/Cleared the API key/);
      assert.ok(undo.buttons.includes('Undo'), `buttons: ${undo.buttons.join(', ')}`);
      const buttons = await driver.waitUntil('the welcome view to offer Set API Key again', async () => {
        const b = await driver.welcomeButtons(VIEW);
        return b.some((x) => /set api key/i.test(x)) ? b : undefined;
      });
      assert.ok(buttons.some((b) => /emulator/i.test(b)));
      await shot('04-cleared-welcome-again');
    });

    await check('Test Connection without a key does not report success', async () => {
      await driver.clearNotifications();
      await driver.runCommand('Research Desk: Test Connection');
      const n = await driver.waitForNotification(/key/i, 30_000);
      assert.notEqual(n.severity, 'info', `should warn: ${n.message}`);
      assert.doesNotMatch(n.message, /works/i, n.message);
    });
  },
});
