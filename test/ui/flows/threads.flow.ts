/**
 * Threads flow, as a writer does it: select a claim in a draft, Ask the Research Agent
 * about Selection (Enter for no extra instructions, Enter for pro mode), see "1 thread running" in
 * the status bar, RELOAD THE WINDOW while the agent is still working, see polling resume from
 * what was remembered, then the "has answered" notification; Open Answer opens the answer beside
 * the draft and the Threads view lists the thread. Screenshots at every step.
 */
import assert from 'node:assert/strict';
import { defineFlow } from '../harness';

interface Control {
  setRunOutcome(o: { durationMs?: number; outcome?: 'idle' | 'failed' }): void;
  completeRuns(): void;
  threads(key?: string): { threadId: string; title: string | null; status: string; interactions: number }[];
}

const CLAIM = 'Creatine supplementation improves short-term memory in healthy adults.';

export const flow = defineFlow({
  name: 'threads',
  files: { 'draft.md': `# Draft: supplements and memory\n\n${CLAIM}\n\nMore text follows here.\n` },
  timeoutMs: 240_000,
  async run({ driver, emulator, extensionId, check, shot }) {
    const page = driver.page;
    const control = emulator.control as Control;
    /** The start of the title the service generated for the thread (it need not repeat the brief). */
    const titled = (): RegExp => {
      const title = control.threads(emulator.keys.pro)[0]?.title ?? '';
      assert.ok(title.length > 0, 'the thread has a title');
      return new RegExp(title.slice(0, 30).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    };
    const running = async (): Promise<string | undefined> => {
      const items = await driver.extensionStatusBarItems(extensionId);
      return items.map((i) => `${i.text} ${i.ariaLabel}`).find((t) => /thread(s)? running/.test(t));
    };

    await check('with a key set, a draft is open and the claim selected', async () => {
      await driver.openViewContainer('researchDesk');
      await driver.runCommand('Research Desk: Set API Key');
      await driver.answerInput(emulator.keys.pro!, { password: true });
      await page.keyboard.press('Control+P');
      await driver.quickInputBox().waitFor({ state: 'visible', timeout: driver.timeoutMs });
      await driver.quickInputBox().fill('draft.md');
      await page
        .locator('.quick-input-list .monaco-list-row', { hasText: 'draft.md' })
        .first()
        .waitFor({ state: 'visible', timeout: driver.timeoutMs });
      await page.keyboard.press('Enter');
      const line = page.locator('.monaco-editor .view-line', { hasText: 'Creatine supplementation' }).first();
      await line.waitFor({ state: 'visible', timeout: driver.timeoutMs });
      await line.click();
      await page.keyboard.press('Home');
      await page.keyboard.press('Shift+End');
      await shot('01-selection');
    });

    await check('Ask the Research Agent about Selection starts a thread; the status bar shows it running', async () => {
      // Long enough to reload the window in the middle of the run.
      control.setRunOutcome({ durationMs: 600_000 });
      await driver.runCommand('Research Desk: Ask the Research Agent about Selection');
      // No extra instructions: Enter. The mode pick follows in the same quick input.
      await driver.quickInputBox().waitFor({ state: 'visible', timeout: driver.timeoutMs });
      await driver.quickInputBox().press('Enter');
      await driver.answerInput('', { expectTitle: 'Research agent mode' }); // the first mode: pro
      const text = await driver.waitUntil('a running thread in the status bar', running, 30_000);
      assert.match(text, /1 thread running/);
      const threads = control.threads(emulator.keys.pro);
      assert.equal(threads.length, 1);
      assert.equal(threads[0]?.status, 'running');
      await shot('02-running');
    });

    await check('after a window reload the key is still set and the running thread is resumed', async () => {
      await page.goto(page.url(), { waitUntil: 'domcontentloaded' });
      await driver.ready();
      await driver.openViewContainer('researchDesk');
      // The key typed before the reload is kept (the workbench's secret storage survives a reload here as on the
      // desktop): the run resumes without asking for it, and the view does not fall back to its welcome.
      const text = await driver.waitUntil('the resumed thread in the status bar', running, 60_000);
      assert.match(text, /1 thread running/);
      const welcome = await driver.welcomeButtons('researchDesk.results');
      assert.ok(!welcome.some((b) => /set api key/i.test(b)), `the key was lost: ${welcome.join(', ')}`);
      await shot('03-resumed-after-reload');
    });

    await check('when the run ends, a notification offers Open Answer, which opens the answer', async () => {
      control.completeRuns();
      const toast = await driver.waitForNotification(/has answered/, 30_000);
      // The service generates the thread's title (it need not repeat the brief): the notification names it.
      const named = titled();
      assert.match(toast.message, named);
      await shot('04-notification');
      await driver.clickNotificationButton(/has answered/, 'Open Answer');
      const tabs = await driver.waitUntil(
        'the answer tab',
        async () => {
          const t = await driver.editorTabs();
          return t.some((x) => named.test(x)) ? t : undefined;
        },
        30_000,
      );
      assert.ok(
        tabs.some((t) => named.test(t)),
        tabs.join(' | '),
      );
      assert.equal(await running(), undefined, 'the status bar still shows a running thread');
      await shot('05-answer');
    });

    await check('the Threads view lists the thread as answered', async () => {
      await driver.openViewContainer('researchDesk');
      const pane = driver.viewPane('researchDesk.threads');
      const header = pane.locator('.pane-header').first();
      if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
      const rows = await driver.waitUntil(
        'threads in the Threads view',
        async () => {
          const r = await driver.treeItems('researchDesk.threads');
          return r.some((x) => titled().test(x)) ? r : undefined;
        },
        30_000,
      );
      assert.ok(
        rows.some((r) => /answered/.test(r)),
        rows.join(' | '),
      );
      await shot('06-threads-view');
    });
  },
});
