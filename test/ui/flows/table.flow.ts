/**
 * The evidence table in the real workbench, as a researcher screens with it: search, open the table from the Research
 * view's title bar, Load More, sort by a header (click and keyboard), filter within the loaded papers, move and select
 * with the keyboard, hide a column, Insert Citation of the selected rows into the draft (the last active editor),
 * export them as RIS through the save dialog; then a search whose papers carry hostile text, shown as text with
 * nothing of it run. Screenshots in the light, dark and high-contrast themes.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from '../../../scripts/vscode/pw-types';
import { defineFlow } from '../harness';

type Evaluable = Locator & { evaluate<R>(fn: (el: HTMLElement) => R): Promise<R> };
const evaluable = (l: Locator): Evaluable => l as Evaluable;
/** playwright's Locator.selectOption (real API; the project's pw-types mirror leaves it out). */
const selectOption = (l: Locator, value: string): Promise<unknown> =>
  (l as Locator & { selectOption(v: string): Promise<unknown> }).selectOption(value);

const VIEW = 'researchDesk.results';
const QUERY = 'creatine supplementation and memory';

const HOSTILE = {
  title: 'Hostile <img src=x onerror="window.pwned=1"> title\nER  - <script>window.pwned=2</script>',
  abstract: 'Abstract.',
  takeaway:
    '\u202eReversed\u202c takeaway <b onmouseover="window.pwned=3">bold</b> [link](command:workbench.action.quit)',
  authors: ['<i>Mallory</i> Evil', 'Ana Lima'],
  doi: '10.1000/hostile.1',
  journal_name: 'Journal of <style>body{display:none}</style>',
  pages: '1-2',
  publish_year: 2022,
  url: 'javascript:window.pwned=4',
  volume: '1',
  citation_count: 3,
  study_type: 'non-rct in vitro',
  population_type: '<svg onload="window.pwned=5">',
};

export const flow = defineFlow({
  name: 'table',
  userSettings: {
    'workbench.colorTheme': 'Default Light Modern',
    'workbench.preferredDarkColorTheme': 'Default Dark Modern',
  },
  files: {
    'draft.md': '---\ntitle: Draft\nbibliography: refs.bib\n---\n\nCreatine may help memory.\n',
    'refs.bib': '% The draft’s bibliography.\n',
  },
  timeoutMs: 300_000,
  async run({ driver, emulator, workspace, check, shot }) {
    const page = driver.page;
    const view = () => driver.webviewContent();
    const rows = () => view().locator('#rows tr.row');
    /** Rows the grid holds (only those in view are in the page): its aria-rowcount, less the header row. */
    const rowCount = async (): Promise<number> =>
      Number(await view().locator('#grid').getAttribute('aria-rowcount')) - 1;
    const cellTexts = (column: string) => view().locator(`#rows td.c-${column}`).allInnerTexts();

    await check('a search shows papers in the Research view, and the draft is the last active editor', async () => {
      await driver.openViewContainer('researchDesk');
      await driver.collapseView('researchDesk.threads');
      await driver.runCommand('Research Desk: Set API Key');
      await driver.answerInput(emulator.keys.pro!, { password: true });
      await driver.runCommand('Research Desk: Search Papers');
      await driver.answerInput(QUERY);
      await driver.waitUntil('papers in the Research view', async () => (await driver.treeItems(VIEW)).length >= 5);
      await page.keyboard.press('Control+P');
      await driver.quickInputBox().fill('draft.md');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'draft.md' }).first().waitFor();
      await page.keyboard.press('Enter');
      const line = page.locator('.monaco-editor .view-line', { hasText: 'Creatine may help' }).first();
      await line.waitFor();
      await line.click();
      await page.keyboard.press('End');
    });

    await check('Show Evidence Table in the Research view’s title bar opens the table with the 20 papers', async () => {
      await driver.viewPane(VIEW).hover();
      await driver
        .viewPane(VIEW)
        .locator('.pane-header .actions a[aria-label="Show Evidence Table"]')
        .click({ timeout: driver.timeoutMs });
      await driver.webviewElement('#rows tr.row');
      await driver.waitUntil('20 rows', async () => (await rowCount()) === 20);
      assert.match(await view().locator('#caption').innerText(), /creatine supplementation and memory/);
      assert.match(await view().locator('#status').innerText(), /^20 papers\. In the order of the search results\./);
      const headers = await view().locator('thead th button.sort').allInnerTexts();
      assert.deepEqual(
        headers.map((h) => h.trim()),
        [
          '#',
          'Title',
          'First author',
          'Year',
          'Journal',
          'Study type',
          'Sample size',
          'Population',
          'Duration',
          'Quartile',
          'Citations',
          'Open access',
          'Preprint',
          'Takeaway',
        ],
      );
      const types = await cellTexts('studyType');
      assert.ok(!types.some((t) => /^(rct|non-rct)/.test(t)), `human labels: ${types.join(' | ')}`);
    });

    await check('Load More in the table adds the next 20 papers (from the buffer: no call)', async () => {
      await (await driver.webviewElement('#load-more')).click();
      await driver.waitUntil('40 rows', async () => (await rowCount()) === 40);
    });

    await check('a click on Year sorts ascending, another descending; papers without a year go last', async () => {
      const year = view().locator('thead th.c-year button');
      await year.click();
      await driver.waitUntil(
        'ascending',
        async () => (await view().locator('th.c-year').getAttribute('aria-sort')) === 'ascending',
      );
      await year.click();
      await driver.waitUntil(
        'descending',
        async () => (await view().locator('th.c-year').getAttribute('aria-sort')) === 'descending',
      );
      const years = (await cellTexts('year')).map((y) => y.trim());
      const known = years.filter((y) => /^\d{4}$/.test(y)).map(Number);
      assert.deepEqual(
        known,
        [...known].sort((a, b) => b - a),
        years.join(' '),
      );
      assert.ok(
        years.slice(known.length).every((y) => !/^\d{4}$/.test(y)),
        'missing years last',
      );
      assert.match(await view().locator('#status').innerText(), /Sorted by Year, descending\./);
      await driver.clearNotifications();
      await shot('01-sorted-light');
    });

    await check('filtering within the loaded papers: words, study type, smallest sample; Clear Filters', async () => {
      await view().locator('#f-text').fill('memory');
      await driver.waitUntil('a filtered count', async () =>
        /of 40 papers shown/.test(await view().locator('#status').innerText()),
      );
      const shown = await rowCount();
      assert.ok(shown > 0 && shown < 40, `${shown} rows`);
      await view().locator('#f-sample').fill('100');
      await driver.waitUntil('fewer rows', async () => (await rowCount()) < shown || undefined);
      const samples = (await cellTexts('sampleSize')).map((s) => Number(s.replace(/\D/g, '')));
      assert.ok(
        samples.every((n) => n >= 100),
        samples.join(' '),
      );
      await shot('02-filtered-light');
      await view().locator('#f-clear').click();
      await driver.waitUntil('all 40 again', async () => (await rowCount()) === 40);
    });

    await check(
      'keyboard: arrows move between cells, Space and Shift+Down select, the row says it is selected',
      async () => {
        await rows().first().locator('td.c-title').click();
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('Space');
        await page.keyboard.press('Shift+ArrowDown');
        await driver.waitUntil('2 selected', async () =>
          /2 papers selected/.test(await view().locator('#selection').innerText()),
        );
        const selected = await view().locator('#rows tr.row[aria-selected="true"]').count();
        assert.equal(selected, 2);
        const focused = await evaluable(view().locator('body')).evaluate(() => {
          const a = document.activeElement;
          return {
            tag: a?.tagName ?? '',
            cls: a?.className ?? '',
            tabindex: a?.getAttribute('tabindex') ?? '',
            outline: a ? getComputedStyle(a).outlineStyle : '',
          };
        });
        assert.equal(focused.tag, 'TD');
        assert.equal(focused.tabindex, '0', 'the one tab stop');
        assert.equal(focused.outline, 'solid', 'a visible focus ring');
        assert.equal(await view().locator('#a-insertCitation').getAttribute('disabled'), null);
        // Only the rows in view are in the page: Ctrl+End brings the last one in and focuses it.
        await page.keyboard.press('Control+End');
        await driver.waitUntil('the last row focused', async () => {
          const at = await evaluable(view().locator('body')).evaluate(
            () => document.activeElement?.closest('tr')?.getAttribute('aria-rowindex') ?? '',
          );
          return at === '41' || undefined;
        });
        await page.keyboard.press('Control+Home');
        await shot('03-keyboard-selection-light');
      },
    );

    await check('choosing columns: the Takeaway column hides', async () => {
      await view().locator('#columns summary').click();
      await view().locator('#columns input[data-col="takeaway"]').click();
      await driver.waitUntil(
        'the takeaway column hidden',
        async () => !(await view().locator('th.c-takeaway').isVisible()),
      );
      await view().locator('#columns summary').click();
    });

    await check('Insert Citation of the two selected rows cites both in the draft and adds their entries', async () => {
      await view().locator('#a-insertCitation').click();
      const bib = join(workspace, 'refs.bib');
      const keysIn = (): string[] => {
        const text = existsSync(bib) ? readFileSync(bib, 'utf8') : '';
        return [...text.matchAll(/^@\w+\{([^,]+),/gm)].map((m) => m[1]!);
      };
      const entries = await driver.waitUntil('two entries in refs.bib', () =>
        Promise.resolve(keysIn().length === 2 ? keysIn() : undefined),
      );
      const line = page.locator('.monaco-editor .view-line', { hasText: '[@' }).first();
      await line.waitFor({ timeout: driver.timeoutMs });
      const text = await line.innerText();
      for (const key of entries) assert.ok(text.includes(`@${key}`), `${key} in ${text}`);
    });

    await check('Export as RIS: the save dialog, then a file of two records', async () => {
      await selectOption(view().locator('#export-format'), 'ris');
      await view().locator('#a-export').click();
      const target = join(workspace, 'screened.ris');
      await driver.quickInputBox().waitFor({ state: 'visible', timeout: driver.timeoutMs });
      // The simple save dialog fills in its default path a moment after it shows: typed before that, it is replaced.
      await driver.waitUntil('the save dialog’s default path', async () =>
        /creatine-supplementation-and-memory\.ris$/.test(await driver.quickInputBox().inputValue()),
      );
      await driver.answerInput(target);
      const text = await driver.waitUntil('screened.ris', () =>
        Promise.resolve(existsSync(target) ? readFileSync(target, 'utf8') : undefined),
      );
      assert.equal(text.match(/^TY {2}- /gm)?.length, 2, text);
      assert.ok(
        text.split('\r\n').every((l) => l === '' || /^[A-Z][A-Z0-9] {2}- /.test(l)),
        text,
      );
    });

    await check('a search whose paper carries hostile text: the table shows it as text and runs nothing', async () => {
      (emulator.control as { injectFault(f: unknown): void }).injectFault({
        route: 'search',
        kind: 'status_before',
        status: 200,
        body: { results: [HOSTILE], page: 0, page_size: 100, is_end: true, next_page: null },
      });
      await driver.runCommand('Research Desk: Search Papers');
      await driver.answerInput('hostile text in a result');
      await driver.waitUntil(
        'the hostile row',
        async () => (await rowCount()) === 1 && /Hostile/.test(await rows().first().innerText()),
      );
      const report = await evaluable(view().locator('html')).evaluate(() => ({
        pwned: (window as unknown as { pwned?: unknown }).pwned,
        scripts: [...document.body.querySelectorAll('script')].map((s) => s.src.split('/').pop() ?? ''),
        handlers: [...document.querySelectorAll('*')].flatMap((e) =>
          e.getAttributeNames().filter((a) => a.startsWith('on')),
        ),
        // Something of the workbench leaves an empty style="" on the page's own inputs, and the page sizes its two
        // spacer rows (CSSOM, which the CSP allows): nothing else may carry a style.
        styled: [...document.body.querySelectorAll('[style]')]
          .filter(
            (e) =>
              e.getAttribute('style') !== '' &&
              !(e.classList.contains('spacer') && /^height: \d+(\.\d+)?px;$/.test(e.getAttribute('style') ?? '')),
          )
          .map((e) => e.outerHTML.slice(0, 120)),
        embedded: [...document.body.querySelectorAll('img, svg, iframe, object, style, a[href]')].map((e) =>
          e.outerHTML.slice(0, 80),
        ),
        title: document.querySelector('#rows td.c-title')?.textContent ?? '',
        type: document.querySelector('#rows td.c-studyType')?.textContent ?? '',
        hidden: document.body.offsetParent === null && getComputedStyle(document.body).display === 'none',
      }));
      assert.equal(report.pwned, undefined);
      assert.deepEqual(report.scripts, ['table.js']);
      assert.deepEqual(report.handlers, []);
      assert.deepEqual(report.styled, [], 'no style attribute');
      assert.deepEqual(report.embedded, [], 'no image, svg, style or link from the text');
      assert.ok(report.title.includes('<img src=x') && report.title.includes('ER - <script>'), report.title);
      assert.equal(report.type, 'In vitro study');
      assert.equal(report.hidden, false);
      await shot('04-hostile-light');
    });

    await check('dark theme: the table follows the theme', async () => {
      const before = await evaluable(view().locator('body')).evaluate((b) => getComputedStyle(b).backgroundColor);
      await driver.runCommand('Preferences: Toggle between Light/Dark Themes');
      await driver.waitUntil('the webview background to change', async () => {
        const now = await evaluable(view().locator('body')).evaluate((b) => getComputedStyle(b).backgroundColor);
        return now !== before || undefined;
      });
      // Right after a theme change the workbench can hold its quick input inert for a moment.
      await page.waitForTimeout(1000);
      await driver.runCommand('Research Desk: Search Papers');
      await driver.answerInput(QUERY);
      await driver.waitUntil('20 rows again', async () => (await rowCount()) === 20);
      await rows().nth(1).locator('td.c-select input').click();
      await rows().nth(3).locator('td.c-title').click();
      await shot('05-table-dark');
    });

    await check('high-contrast theme: a selected row keeps a border, the focus ring is solid', async () => {
      await driver.runCommand('Preferences: Color Theme');
      await driver.answerInput('Dark High Contrast');
      const outline = await driver.waitUntil('the high-contrast selection border', async () => {
        const o = await evaluable(view().locator('#rows tr.row[aria-selected="true"]').first()).evaluate(
          (tr) => getComputedStyle(tr).outlineStyle,
        );
        return o === 'dashed' ? o : undefined;
      });
      assert.equal(outline, 'dashed');
      await rows().nth(3).locator('td.c-title').click();
      const focus = await evaluable(rows().nth(3).locator('td.c-title')).evaluate(
        (td) => getComputedStyle(td).outlineStyle,
      );
      assert.equal(focus, 'solid');
      await shot('06-table-high-contrast');
    });
  },
});
