/**
 * The answer view in the real webview: a thread whose answer is hostile (script tags,
 * event handlers, dangerous links, raw HTML, remote images) and also well formed (citations with
 * quotes) is shown; inside the webview's iframe nothing of the hostile text ran or survived as
 * markup (the turn's question included, shown as text above the answer), our own (nonce) script did run: clicking
 * [1.1] shows its quote, Escape closes it. Screenshots in the light and dark default themes. Export as Markdown proposes
 * a name cut between words and says where it wrote, with Open.
 */
import assert from 'node:assert/strict';
import type { Locator } from '../../../scripts/vscode/pw-types';
import { defineFlow } from '../harness';

/** playwright's Locator.evaluate (real API; the project's pw-types mirror leaves it out). */
type Evaluable = Locator & { evaluate<R>(fn: (el: HTMLElement) => R): Promise<R> };
const evaluable = (l: Locator): Evaluable => l as Evaluable;

const FIXTURE = 'answer-fixture.json';
/** The turn's question as the service's data carries it: shown above the answer, as text. */
const QUESTION = 'Does spaced repetition help?\n<img src=x onerror="window.pwned=10"> <b>really</b>';

const thread = {
  thread_id: 'ui-answer-fixture',
  title: 'Does spaced repetition improve retention? <script>document.title="pwned"</script>',
  status: 'idle',
  url: 'https://consensus.app/threads/ui-answer-fixture',
  interactions: [
    {
      interaction_id: 'int-ui-1',
      status: 'idle',
      mode: 'pro',
      input_message: QUESTION,
      stats: { retrieved: 350, screened: 60, included: 12 },
      response: [
        '## Summary',
        'Spaced repetition improves long-term retention in medical students [1.1], with larger effects for delayed tests [2.1] [2].',
        '<script>window.pwned = 1; document.title = "pwned"</script>',
        '<img src="https://evil.example/pixel.png" onerror="window.pwned = 2">',
        '<a href="javascript:window.pwned=3" onclick="window.pwned=4">raw link</a> <div onmouseover="window.pwned=5">hover</div>',
        'Links: [js](javascript:window.pwned=6) [cmd](command:workbench.action.quit) [data](data:text/html,<b>x</b>) [file](file:///etc/passwd) [http](http://evil.example/) [ok](https://example.org/)',
        '![tracker](https://evil.example/track.png)',
        '| Study | Effect |\n|---|:-:|\n| A | 0.5 |',
      ].join('\n\n'),
      citations: [
        {
          n: 1,
          paper_id: 'p1',
          title: 'Spacing effects in medical education: a randomised trial',
          year: 2021,
          journal: 'Medical Education',
          url: 'https://consensus.app/papers/spacing-effects/0123456789abcdef0123456789abcdef/',
          snippets: [
            {
              marker: '[1.1]',
              quote: 'Students who used spaced repetition retained 27% more at six months.',
              section: 'Results',
            },
          ],
        },
        {
          n: 2,
          paper_id: 'p2',
          title: 'Retrieval practice <img src=x onerror="window.pwned=7">',
          year: 2019,
          journal: 'Learning "and" <b>Memory</b>',
          url: 'javascript:window.pwned=8',
          snippets: [{ marker: '[2.1]', quote: '"><script>window.pwned=9</script>', section: 'Discussion <i>x</i>' }],
        },
      ],
    },
  ],
};

export const flow = defineFlow({
  name: 'answer',
  userSettings: {
    'workbench.colorTheme': 'Default Light Modern',
    'workbench.preferredDarkColorTheme': 'Default Dark Modern',
  },
  env: { RESEARCH_DESK_UI_FIXTURE: FIXTURE },
  files: { [FIXTURE]: JSON.stringify(thread) },
  async run({ driver, check, shot }) {
    const view = () => driver.webviewContent();

    await check('the answer opens beside in a webview panel (core loaded by a command)', async () => {
      await driver.openViewContainer('researchDesk');
      await driver.runCommand('Research Desk: Export Answer as Markdown');
      await driver.webviewElement('#thread-title');
      const tabs = await driver.editorTabs();
      assert.ok(
        tabs.some((t) => t.startsWith('Does spaced repetition')),
        `tabs: ${tabs.join(' | ')}`,
      );
      await driver.clearNotifications();
    });

    await check('nothing of the hostile answer ran or survived as markup in the real webview', async () => {
      const report = await evaluable(view().locator('html')).evaluate(() => {
        const all = [...document.querySelectorAll('*')];
        return {
          pwned: (window as unknown as { pwned?: unknown }).pwned,
          title: document.title,
          // VS Code injects its own script into the frame's head; the page body holds ours only.
          scripts: [...document.body.querySelectorAll('script')].map((s) => s.src.split('/').pop() ?? ''),
          inlineScripts: [...document.body.querySelectorAll('script')].filter((s) => s.textContent?.trim()).length,
          hostileScripts: [...document.scripts].filter((s) => s.textContent?.includes('pwned')).length,
          handlers: all.flatMap((e) =>
            e
              .getAttributeNames()
              .filter((a) => a.startsWith('on'))
              .map((a) => `${e.tagName}.${a}`),
          ),
          // VS Code puts the theme variables in <html style>; nothing in the body may carry a style.
          styled: [...document.body.querySelectorAll('[style]')].map((e) => e.tagName),
          images: document.querySelectorAll('img, iframe, object, embed, video, audio, svg image').length,
          hrefs: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href') ?? ''),
          headingText: document.querySelector('#thread-title')?.textContent ?? '',
          questionText: document.querySelector('.question-text')?.textContent ?? '',
          statusText: document.querySelector('dd.status')?.textContent ?? '',
        };
      });
      assert.equal(report.questionText, QUESTION, 'the question is shown above the answer, as text');
      assert.equal(report.statusText, 'answered');
      assert.equal(report.pwned, undefined, 'no hostile script ran');
      assert.notEqual(report.title, 'pwned');
      assert.deepEqual(report.scripts, ['webview.js'], 'only our bundled script');
      assert.equal(report.inlineScripts, 0);
      assert.equal(report.hostileScripts, 0);
      assert.deepEqual(report.handlers, []);
      assert.deepEqual(report.styled, [], 'no style attribute');
      assert.equal(report.images, 0, 'no image or embedded content');
      for (const h of report.hrefs) assert.ok(h.startsWith('#') || h.startsWith('https://'), `link ${h}`);
      assert.ok(report.hrefs.includes('https://example.org/'), 'the https link stays a link');
      assert.ok(report.headingText.includes('<script>'), 'hostile title shown as text');
    });

    await check('clicking [1.1] shows its quote, section and paper; Escape closes it', async () => {
      await (await driver.webviewElement('a.cite[data-marker="1.1"]')).click();
      const pop = await driver.webviewElement('#popover:not([hidden])');
      const text = await pop.innerText();
      assert.match(text, /retained 27% more at six months/);
      assert.match(text, /Results/);
      assert.match(text, /Spacing effects in medical education/);
      assert.ok(await pop.locator('button', { hasText: 'Open Paper' }).isVisible(), 'Open Paper offered');
      await shot('01-quote-light');
      await driver.page.keyboard.press('Escape');
      await driver.waitUntil(
        'the popover to close',
        async () => !(await view().locator('#popover').isVisible()) || undefined,
      );
    });

    await check('keyboard: Enter on a focused citation opens the popover', async () => {
      const cite = await driver.webviewElement('a.cite[data-marker="2.1"]');
      await cite.focus();
      await driver.page.keyboard.press('Enter');
      const pop = await driver.webviewElement('#popover:not([hidden])');
      assert.match(await pop.innerText(), /<script>window.pwned=9<\/script>/, 'hostile quote shown as text');
      assert.equal(
        await pop.locator('button', { hasText: 'Open Paper' }).count(),
        0,
        'no Open Paper for a javascript: url',
      );
      await driver.page.keyboard.press('Escape');
      await shot('02-answer-light');
    });

    await check('dark theme: the view follows the theme', async () => {
      const before = await evaluable(view().locator('body')).evaluate((b) => getComputedStyle(b).backgroundColor);
      await driver.runCommand('Preferences: Toggle between Light/Dark Themes');
      await driver.waitUntil('the webview background to change', async () => {
        const now = await evaluable(view().locator('body')).evaluate((b) => getComputedStyle(b).backgroundColor);
        return now !== before || undefined;
      });
      await (await driver.webviewElement('a.cite[data-marker="1.1"]')).click();
      await driver.webviewElement('#popover:not([hidden])');
      await shot('03-quote-dark');
      await driver.page.keyboard.press('Escape');
    });

    await check('high-contrast theme: borders and focus ring from the theme', async () => {
      await driver.runCommand('Preferences: Color Theme');
      await driver.answerInput('Dark High Contrast');
      const border = await driver.waitUntil('the high-contrast blockquote border', async () => {
        const b = await evaluable(view().locator('.reference-quote blockquote').first()).evaluate(
          (q) => getComputedStyle(q).borderLeftColor,
        );
        return b !== 'rgba(0, 0, 0, 0)' ? b : undefined;
      });
      assert.ok(border);
      const cite = await driver.webviewElement('a.cite[data-marker="1.1"]');
      await cite.focus();
      const outline = await evaluable(cite).evaluate((a) => getComputedStyle(a).outlineStyle);
      assert.equal(outline, 'solid', 'visible focus ring');
      await shot('04-answer-high-contrast');
    });

    await check(
      'Export as Markdown proposes a name cut between words, then says where it wrote; Open opens it',
      async () => {
        await (await driver.webviewElement('#export')).click();
        const box = driver.quickInputBox();
        await box.waitFor({ state: 'visible', timeout: driver.timeoutMs });
        // The dialog fills in its folder first, then the proposed name.
        const proposed = await driver.waitUntil('the proposed file name', async () => {
          const v = await box.inputValue();
          return v.endsWith('.md') ? v : undefined;
        });
        // "Does spaced repetition improve retention? <script>document.title=…": no mark a system refuses, whole words.
        assert.match(proposed, /\/Does spaced repetition improve retention script document\.md$/, proposed);
        await shot('05-export-save-dialog');
        await box.press('Enter');
        const toast = await driver.waitForNotification(/Answer exported to/);
        assert.match(
          toast.message,
          /Answer exported to Does spaced repetition improve retention script document\.md\./,
        );
        assert.deepEqual(toast.buttons, ['Open']);
        await shot('06-export-confirmed');
        await driver.clickNotificationButton(/Answer exported to/, 'Open');
        await driver
          .waitUntil(
            'the exported file in an editor',
            async () =>
              (await driver.editorTabs()).some((t) =>
                /^Does spaced repetition improve retention script document(\.md)?$/.test(t.replace(/\s+/g, ' ')),
              ) || undefined,
          )
          .catch(async (e: unknown) => {
            throw new Error(`${String(e)}; tabs: ${JSON.stringify(await driver.editorTabs())}`);
          });
        await driver.page
          .locator('.monaco-editor .view-line', { hasText: '## References' })
          .first()
          .waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await shot('07-export-opened');
      },
    );
  },
});
