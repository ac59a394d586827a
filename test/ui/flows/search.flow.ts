/**
 * Search flow, as a writer does it: open a draft, select a sentence, Search
 * Selection with the keybinding (Ctrl+Alt+R), see ranked papers in the Research view, hover a
 * paper for its tooltip, Load More, and the status bar; then a paper whose takeaway holds URLs, hovered to see
 * which of them the real tooltip makes links. Screenshots at every step.
 */
import assert from 'node:assert/strict';
import type { Locator, Page } from '../../../scripts/vscode/pw-types';
import { defineFlow } from '../harness';

/** Parts of playwright-core's API that scripts/vscode/pw-types.ts does not declare (real signatures). */
interface Mouse {
  move(x: number, y: number, options?: { steps?: number }): Promise<void>;
  down(): Promise<void>;
  up(): Promise<void>;
  wheel(dx: number, dy: number): Promise<void>;
}
type FullPage = Page & { mouse: Mouse };
/** playwright's Locator.evaluateAll (real API; the project's pw-types mirror leaves it out). */
const evaluateAll = <R>(l: Locator, fn: (els: Element[]) => R): Promise<R> =>
  (l as Locator & { evaluateAll<T>(f: (els: Element[]) => T): Promise<T> }).evaluateAll(fn);
const boundingBox = (l: Locator): Promise<{ x: number; y: number; width: number; height: number } | null> =>
  (
    l as Locator & { boundingBox(): Promise<{ x: number; y: number; width: number; height: number } | null> }
  ).boundingBox();

const VIEW = 'researchDesk.results';

/** A paper whose takeaway holds an allowed link and links the one link rule refuses. */
const LINKED_TITLE = 'Links in a takeaway';
const LINKED_PAPER = {
  title: LINKED_TITLE,
  abstract: 'Abstract.',
  takeaway:
    'Data at https://user:pass@evil.example/data and https://consensus.app@evil.example/p; code at https://Example.ORG/code.',
  authors: ['A. Author'],
  doi: '10.1000/links.1',
  journal_name: 'Journal',
  pages: '1-2',
  publish_year: 2020,
  url: 'https://consensus.app/papers/links/1/',
  volume: '1',
  citation_count: 3,
};
const SENTENCE = 'effect of formative feedback on mathematics performance in secondary school students';

export const flow = defineFlow({
  name: 'search',
  files: {
    'draft.md': `# Draft: feedback in maths classrooms\n\nOur claim: the ${SENTENCE} is positive.\n\nMore text follows here.\n`,
  },
  timeoutMs: 240_000,
  async run({ driver, emulator, extensionId, check, shot }) {
    const page = driver.page as FullPage;
    const pane = driver.viewPane(VIEW);

    await check('with a key set, the Research view is ready', async () => {
      await driver.openViewContainer('researchDesk');
      // The Threads view shares the container: fold it, so the results get the side bar's height.
      await driver.collapseView('researchDesk.threads');
      await driver.runCommand('Research Desk: Set API Key');
      await driver.answerInput(emulator.keys.pro!, { password: true });
      await driver.waitUntil('the welcome view to offer Search Papers', async () => {
        const b = await driver.welcomeButtons(VIEW);
        return b.some((x) => /search papers/i.test(x));
      });
    });

    await check('a draft opens and a sentence is selected', async () => {
      // A wider side bar, so the screenshots show author, year and journal next to the titles.
      const box = await boundingBox(page.locator('.part.sidebar'));
      if (box) {
        await page.mouse.move(box.x + box.width + 1, box.y + box.height / 2);
        await page.mouse.down();
        await page.mouse.move(box.x + 640, box.y + box.height / 2, { steps: 8 });
        await page.mouse.up();
      }
      await page.keyboard.press('Control+P');
      await driver.quickInputBox().waitFor({ state: 'visible', timeout: driver.timeoutMs });
      await driver.quickInputBox().fill('draft.md');
      await page
        .locator('.quick-input-list .monaco-list-row', { hasText: 'draft.md' })
        .first()
        .waitFor({ state: 'visible', timeout: driver.timeoutMs });
      await page.keyboard.press('Enter');
      const line = page.locator('.monaco-editor .view-line', { hasText: 'formative feedback' }).first();
      await line.waitFor({ state: 'visible', timeout: driver.timeoutMs });
      // Select the sentence: from "effect" to "students" by keyboard, as a person would with Shift.
      await line.click();
      await page.keyboard.press('Home');
      for (let i = 0; i < 'Our claim: the '.length; i++) await page.keyboard.press('ArrowRight');
      for (let i = 0; i < SENTENCE.length; i++) await page.keyboard.press('Shift+ArrowRight');
      await shot('01-selection');
    });

    await check('Search Selection (Ctrl+Alt+R) shows ranked papers with author, year and journal', async () => {
      await page.keyboard.press('Control+Alt+R');
      const rows = await driver.waitUntil(
        'papers in the Research view',
        async () => {
          const r = await driver.treeItems(VIEW);
          return r.length >= 5 ? r : undefined;
        },
        30_000,
      );
      assert.ok(
        rows.some((r) => /et al\.|·/.test(r)),
        `rows: ${rows.slice(0, 3).join(' | ')}`,
      );
      const description = (await pane.locator('.pane-header .description').innerText()).trim();
      assert.match(description, /formative feedback/);
      assert.match(description, /20 shown/);
      await shot('02-results');
    });

    await check('hovering a paper shows its tooltip with the takeaway and citations', async () => {
      const first = pane.locator('.monaco-list-row').first();
      await first.hover();
      const hover = page
        .locator('.monaco-hover, .workbench-hover')
        .filter({ hasText: /Citations/ })
        .first();
      await hover.waitFor({ state: 'visible', timeout: 10_000 });
      const text = await hover.innerText();
      assert.match(text, /Citations/);
      assert.doesNotMatch(text, /&nbsp;/);
      await shot('03-tooltip');
      await page.mouse.move(5, 5);
    });

    await check("the view's filter finds the randomized trials by their design, written out", async () => {
      const before = await driver.treeItems(VIEW);
      const trials = before.filter((r) => /Randomized controlled trial \(RCT\)/.test(r));
      assert.ok(trials.length > 0 && trials.length < before.length, `rows: ${before.length}, trials: ${trials.length}`);
      assert.ok(!before.some((r) => /· rct\b/.test(r)), 'a raw design code shows');
      await pane.locator('.monaco-list-row').first().click();
      await page.keyboard.press('Control+Alt+F');
      await page.keyboard.type('randomi');
      // Filter mode (not only highlight), and contiguous letters rather than fuzzy ones.
      await page.locator('.monaco-custom-toggle.codicon-list-filter').first().click();
      await page.locator('.monaco-custom-toggle.codicon-search-fuzzy').first().click();
      const kept = await driver.waitUntil('only the trials (and titles saying randomized)', async () => {
        const r = await driver.treeItems(VIEW);
        return r.length < before.length ? r : undefined;
      });
      assert.ok(
        kept.every((r) => /randomi/i.test(r)),
        kept.join(' | '),
      );
      assert.ok(
        trials.every((t) => kept.includes(t)),
        'a trial was filtered out',
      );
      await shot('03a-filter-randomi');
      // Close the filter: the whole list again.
      await page.locator('.monaco-custom-toggle.codicon-list-filter').first().click();
      await page.keyboard.press('Escape');
      await driver.waitUntil('the whole list again', async () =>
        (await driver.treeItems(VIEW)).length === before.length ? true : undefined,
      );
    });

    await check('Load More adds the next 20 papers', async () => {
      const more = pane.locator('.monaco-list-row', { hasText: 'Load More Results' }).first();
      await pane.locator('.monaco-list').first().hover();
      for (let i = 0; i < 10 && !(await more.isVisible()); i++) await page.mouse.wheel(0, 600);
      await more.click({ timeout: driver.timeoutMs });
      await driver.waitUntil('40 papers shown', async () =>
        /40 shown/.test(await pane.locator('.pane-header .description').innerText()),
      );
      // The list is virtualised (only visible rows are in the page): count its items by aria-setsize.
      const size = async () => Number(await pane.locator('.monaco-list-row').first().getAttribute('aria-setsize'));
      await driver.waitUntil('more items in the tree', async () => (await size()) > 21);
      // The header says it; no row above the tree repeats it.
      const messages = await pane.locator('.message').allInnerTexts();
      assert.ok(!messages.some((m) => /shown/.test(m)), `repeated above the tree: ${messages.join(' | ')}`);
      await shot('04-load-more');
    });

    await check('the status bar counts the one call the 40 papers cost (Load More came from the buffer)', async () => {
      const ours = await driver.waitUntil('Research Desk status bar item', async () => {
        const items = await driver.extensionStatusBarItems(extensionId);
        return items.length ? items : undefined;
      });
      await page.mouse.move(1000, 700); // away from the tree, so no tooltip covers the shot
      await page.waitForTimeout(500);
      const text = ours.map((i) => `${i.text} ${i.ariaLabel}`).join(' | ');
      assert.match(text, /\b1 used\b|\b499\b/, text);
      await shot('05-status-bar');
    });

    await check(
      'the real tooltip links only the URL the link rule allows (VS Code would link any https://… by itself)',
      async () => {
        const control = emulator.control as { injectFault(f: unknown): void };
        control.injectFault({
          route: 'search',
          kind: 'status_before',
          status: 200,
          body: { results: [LINKED_PAPER], page: 0, page_size: 100, is_end: true, next_page: null },
        });
        await driver.runCommand('Research Desk: Search Papers');
        await driver.answerInput('links in a takeaway');
        const row = pane.locator('.monaco-list-row', { hasText: LINKED_TITLE }).first();
        await row.waitFor({ state: 'visible', timeout: 30_000 });
        await row.hover();
        const hover = page
          .locator('.monaco-hover, .workbench-hover')
          .filter({ hasText: /Citations/ })
          .first();
        await hover.waitFor({ state: 'visible', timeout: 10_000 });
        const text = await hover.innerText();
        assert.match(text, /https:\/\/user:pass@evil\.example\/data/, text);
        const links = await evaluateAll(hover.locator('a'), (as) =>
          as.map((a) => (a as HTMLElement).dataset.href ?? a.getAttribute('href') ?? ''),
        );
        assert.deepEqual(links, ['https://example.org/code'], text);
        await shot('06-tooltip-links');
        await page.mouse.move(1000, 700);
      },
    );

    await check('Show Abstract opens a readable preview in a tab named after the paper', async () => {
      const row = pane.locator('.monaco-list-row').first();
      const label = (await row.innerText()).split('·').slice(1).join('·').trim();
      await driver.contextMenu(row, 'Show Abstract');
      const words = label.split(' ').slice(0, 3).join(' ');
      const tabs = await driver.waitUntil(`a tab named after the paper (${words})`, async () => {
        const t = await driver.editorTabs();
        return t.some((x) => x.includes(words)) ? t : undefined;
      });
      assert.ok(!tabs.some((t) => /^[0-9a-f]{32}\.md/.test(t)), tabs.join(' | '));
      // The preview renders: no escaping backslash reaches the reader.
      const body = await driver.webviewElement('body');
      const text = await body.innerText();
      assert.match(text, /Abstract/);
      assert.doesNotMatch(text, /\\[.\-(]/, text.slice(0, 400));
      // The preview links bare URLs itself: only the DOI and the URL the link rule allows are links.
      const links = await evaluateAll(driver.webviewContent().locator('a'), (as) =>
        as.map((a) => a.getAttribute('href') ?? ''),
      );
      assert.deepEqual(links.sort(), ['https://doi.org/10.1000/links.1', 'https://example.org/code'], text);
      await shot('07-abstract-preview');
    });
  },
});
