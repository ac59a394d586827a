/**
 * Citations flow, as a writer does it in the real workbench: a LaTeX paper, a Markdown draft and Typst
 * notes in the workspace; search → right-click a result → Insert Citation → `\cite{key}` in the .tex and
 * references.bib created with the entry; in the answer view, [1.1] → Insert Citation → `[@key]` in the draft (the
 * last active editor, not the webview); Insert Answer into the .typ; the completion list after `[@`; the hover on a
 * cite key; the palette's Insert Citation, where a click cites that paper and a title button ticks several; the offer
 * to declare a bibliography, still in the status bar after its notification is gone. Screenshots
 * test-results/ui/cite-*.png.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '../../../scripts/vscode/pw-types';
import { defineFlow } from '../harness';

interface Mouse {
  move(x: number, y: number, options?: { steps?: number }): Promise<void>;
  down(): Promise<void>;
  up(): Promise<void>;
}
type FullPage = Page & { mouse: Mouse };
const boundingBox = (l: Locator): Promise<{ x: number; y: number; width: number; height: number } | null> =>
  (
    l as Locator & { boundingBox(): Promise<{ x: number; y: number; width: number; height: number } | null> }
  ).boundingBox();

const VIEW = 'researchDesk.results';
const FIXTURE = 'cite-answer.json';
const QUERY = 'effect of formative feedback on mathematics performance in secondary school students';

/** An agent answer (shown by the answer view's UI fixture when the core loads). */
const thread = {
  thread_id: 'ui-cite-fixture',
  title: 'Does formative feedback improve mathematics performance?',
  status: 'idle',
  url: 'https://consensus.app/threads/ui-cite-fixture',
  interactions: [
    {
      interaction_id: 'int-cite-1',
      status: 'idle',
      mode: 'pro',
      stats: { retrieved: 120, screened: 40, included: 3 },
      response: [
        '## Short answer',
        'Formative feedback improves mathematics performance by about 15% in secondary school [1.1], most when it is specific and timely [2.1] [2].',
        '## What the studies found',
        '- A cluster trial of 48 schools found gains on standardised tests [1.2].',
        '- Effects were smaller for *grade-only* feedback [3].',
      ].join('\n\n'),
      citations: [
        {
          n: 1,
          paper_id: 'ui-cite-p1',
          title: 'Formative assessment and mathematics achievement: a cluster randomised trial',
          year: 2021,
          journal: 'Journal of Educational Psychology',
          url: 'https://consensus.app/papers/formative-assessment/0123456789abcdef0123456789abcdef/',
          snippets: [
            {
              marker: '[1.1]',
              quote: 'Students receiving formative feedback scored 15% higher on the end-of-year test.',
              section: 'Results',
            },
            {
              marker: '[1.2]',
              quote: 'Forty-eight schools were randomised to the intervention or to usual teaching.',
              section: 'Methods',
            },
          ],
        },
        {
          n: 2,
          paper_id: 'ui-cite-p2',
          title: 'The power of feedback revisited: a meta-analysis of educational feedback research',
          year: 2019,
          journal: 'Frontiers in Psychology',
          url: 'https://consensus.app/papers/power-of-feedback/fedcba9876543210fedcba9876543210/',
          snippets: [
            {
              marker: '[2.1]',
              quote: 'Feedback was most effective when it contained specific information on the task.',
              section: 'Discussion',
            },
          ],
        },
        {
          n: 3,
          paper_id: 'ui-cite-p3',
          title: 'Grades versus comments: effects on mathematics learning',
          year: 2016,
          journal: 'Learning and Instruction',
          url: 'https://consensus.app/papers/grades-versus-comments/00112233445566778899aabbccddeeff/',
          snippets: [],
        },
      ],
    },
  ],
};

export const flow = defineFlow({
  name: 'cite',
  env: { RESEARCH_DESK_UI_FIXTURE: FIXTURE },
  userSettings: {
    'workbench.colorTheme': 'Default Light Modern',
    'editor.quickSuggestions': { other: false, comments: false, strings: false },
    // The fixture answer's papers are not in the emulator's corpus: a lookup by title would find nothing.
    'researchDesk.citations.lookUpMissingMetadata': 'never',
  },
  files: {
    [FIXTURE]: JSON.stringify(thread),
    'paper.tex':
      '\\documentclass{article}\n\\begin{document}\nFeedback improves mathematics performance.\n\n\\bibliography{references}\n\\end{document}\n',
    'draft.md': '---\nbibliography: references.bib\n---\n\n# Draft\n\nTimely feedback matters.\n',
    'notes.typ': '#bibliography("references.bib")\n\n= Notes\n\n',
    'undeclared.md': '# Undeclared\n\nNo bibliography is declared here.\n',
  },
  timeoutMs: 300_000,
  async run({ driver, emulator, workspace, check, shot }) {
    const page = driver.page as FullPage;
    const pane = driver.viewPane(VIEW);
    const bibPath = join(workspace, 'references.bib');
    const bib = (): string => (existsSync(bibPath) ? readFileSync(bibPath, 'utf8') : '');
    const entries = (): string[] => [...bib().matchAll(/^@\w+\{([^,\s]+),/gm)].map((m) => m[1]!);

    /** Opens a workspace file with Ctrl+P in the first editor group and puts the cursor at the end of a line. */
    async function open(file: string, lineText: string): Promise<Locator> {
      await driver.closeQuickInput();
      // An open file by its tab (the keyboard focus may be inside the answer webview, which keeps Ctrl+P), else Ctrl+P.
      const tab = page.locator('.part.editor .tab', { hasText: file }).first();
      if (await tab.isVisible()) await tab.click();
      else {
        await page.keyboard.press('Control+P');
        await driver.quickInputBox().waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await driver.quickInputBox().fill(file);
        await page
          .locator('.quick-input-list .monaco-list-row', { hasText: file })
          .first()
          .waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await page.keyboard.press('Enter');
      }
      const line = page.locator('.monaco-editor .view-line', { hasText: lineText }).first();
      await line.waitFor({ state: 'visible', timeout: driver.timeoutMs });
      await line.click();
      await page.keyboard.press('End');
      return line;
    }

    await check('with a key set, the Research view is ready and the answer fixture opens beside', async () => {
      await driver.openViewContainer('researchDesk');
      await driver.collapseView('researchDesk.threads');
      await driver.runCommand('Research Desk: Set API Key');
      await driver.answerInput(emulator.keys.pro!, { password: true });
      await driver.webviewElement('#thread-title');
      await driver.clearNotifications();
      // A wider side bar, so the results show author, year and journal.
      const box = await boundingBox(page.locator('.part.sidebar'));
      if (box) {
        await page.mouse.move(box.x + box.width + 1, box.y + box.height / 2);
        await page.mouse.down();
        await page.mouse.move(box.x + 460, box.y + box.height / 2, { steps: 8 });
        await page.mouse.up();
      }
    });

    await check(
      'search from the LaTeX paper; right-click a result → Insert Citation writes \\cite{key} and creates references.bib',
      async () => {
        await open('paper.tex', 'Feedback improves mathematics performance.');
        await driver.runCommand('Research Desk: Search Papers');
        await driver.answerInput(QUERY);
        await driver.waitUntil(
          'papers in the Research view',
          async () => ((await driver.treeItems(VIEW)).length >= 5 ? true : undefined),
          30_000,
        );
        const row = pane.locator('.monaco-list-row').first();
        await row.click({ button: 'right' });
        const item = page.locator('.context-view .monaco-menu .action-item', { hasText: 'Insert Citation' }).first();
        await item.waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await shot('01-results-context-menu');
        await item.click();
        // references.bib does not exist yet: it is created only after the writer says yes (asked once per file).
        const question = await driver.waitForDialog(/Add the new bibliography entries to references\.bib/);
        assert.match(question, /does not exist yet/);
        assert.ok(!existsSync(bibPath), 'references.bib was written before the writer answered');
        await shot('02a-confirm-new-bib');
        await driver.clickDialogButton(/Add the new bibliography entries/, 'Write to It');
        const cited = page.locator('.monaco-editor .view-line', { hasText: 'performance.~\\cite{' }).first();
        await cited.waitFor({ state: 'visible', timeout: driver.timeoutMs });
        const key = /\\cite\{([^}]+)\}/.exec((await cited.innerText()).replace(/\u00a0/g, ' '))?.[1];
        assert.ok(key, 'a key in the citation');
        await driver.waitUntil('references.bib with the entry', () =>
          Promise.resolve(entries().includes(key) || undefined),
        );
        assert.equal(entries().length, 1);
        await shot('02-tex-cited');
      },
    );

    await check(
      'answer view: [1.1] → Insert Citation puts [@key] in the Markdown draft (the last active editor)',
      async () => {
        await open('draft.md', 'Timely feedback matters.');
        const before = entries().length;
        // The answer is in the other editor group: click into it (the webview takes the focus).
        await page.locator('.part.editor .tab', { hasText: 'Does formative feedback' }).first().click();
        await (await driver.webviewElement('a.cite[data-marker="1.1"]')).click();
        const pop = await driver.webviewElement('#popover:not([hidden])');
        const insert = pop.locator('button', { hasText: 'Insert Citation' });
        assert.ok(await insert.isVisible(), 'Insert Citation offered in the popover');
        assert.ok(await pop.locator('button', { hasText: 'Copy BibTeX' }).isVisible());
        assert.ok(await pop.locator('button', { hasText: 'Copy Reference' }).isVisible());
        await shot('03-answer-popover-actions');
        await insert.click();
        const cited = page.locator('.monaco-editor .view-line', { hasText: 'matters. [@' }).first();
        await cited.waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await driver.waitUntil('the paper of [1.1] in references.bib', () =>
          Promise.resolve(entries().length === before + 1 ? true : undefined),
        );
        assert.match(bib(), /Formative assessment and mathematics achievement/);
        await page.keyboard.press('Escape');
        await shot('04-md-cited-from-answer');
      },
    );

    await check(
      'Insert Answer writes the answer into the Typst notes: headings as bold paragraphs, @key citations, entries added',
      async () => {
        await open('notes.typ', '= Notes');
        await page.keyboard.press('Enter');
        await page.locator('.part.editor .tab', { hasText: 'Does formative feedback' }).first().click();
        const button = await driver.webviewElement('#insert-answer');
        await button.click();
        const heading = page.locator('.monaco-editor .view-line', { hasText: '#strong[Short answer]' }).first();
        await heading.waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await page
          .locator('.monaco-editor .view-line', { hasText: /secondary\sschool\s@\w+/ })
          .first()
          .waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await driver.waitUntil('the three cited papers in references.bib', () =>
          Promise.resolve(
            /Grades versus comments/.test(bib()) && /power of feedback revisited/i.test(bib()) ? true : undefined,
          ),
        );
        await shot('05-typ-answer-inserted');
      },
    );

    await check('completion after [@ in the Markdown draft lists the bibliography entries', async () => {
      await open('draft.md', '# Draft');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter');
      await page.keyboard.type('As shown [@');
      const suggest = page.locator('.editor-widget.suggest-widget');
      const visible = await suggest.isVisible();
      if (!visible) await page.keyboard.press('Control+Space');
      await suggest.waitFor({ state: 'visible', timeout: driver.timeoutMs });
      const rows = suggest.locator('.monaco-list-row');
      await driver.waitUntil('completion items', async () => ((await rows.count()) > 0 ? true : undefined));
      const labels = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
      const keys = entries();
      assert.ok(
        labels.some((l) => keys.some((k) => l.includes(k))),
        `items ${labels.join(' | ')} / keys ${keys.join(', ')}`,
      );
      await shot('06-md-completion');
      await page.keyboard.press('Escape');
    });

    await check('hover on the cite key in the LaTeX paper shows the paper', async () => {
      await page.locator('.part.editor .tab', { hasText: 'paper.tex' }).first().click();
      const line = page.locator('.monaco-editor .view-line', { hasText: '\\cite{' }).first();
      await line.waitFor({ state: 'visible', timeout: driver.timeoutMs });
      const key = /\\cite\{([^}]+)\}/.exec((await line.innerText()).replace(/\u00a0/g, ' '))?.[1];
      assert.ok(key, 'the key cited in step 2');
      // The token's own span (monaco splits a line into mtk* spans), hovered as a person does.
      const token = line.locator('span[class^="mtk"]', { hasText: key }).first();
      await token.hover();
      const hover = page.locator('.monaco-hover').filter({ hasText: /\d{4}/ }).first();
      try {
        await hover.waitFor({ state: 'visible', timeout: 5000 });
      } catch {
        // Keyboard route: the cursor on the key, then Show or Focus Hover.
        await token.click();
        await driver.runCommand('Show or Focus Hover');
        await hover.waitFor({ state: 'visible', timeout: 10_000 });
      }
      const text = await hover.innerText();
      assert.ok(text.length > 20, text);
      await shot('07-tex-hover');
      await page.keyboard.press('Escape');
    });

    const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    const several = page.locator('.quick-input-widget .quick-input-titlebar [aria-label="Select Several Papers"]');

    await check("the palette's Insert Citation: a click on a row cites that paper at once", async () => {
      await open('draft.md', 'Timely feedback matters.');
      const before = await page
        .locator('.monaco-editor .view-line', { hasText: 'Timely feedback matters.' })
        .first()
        .innerText();
      await driver.runCommand('Research Desk: Insert Citation');
      await rows.first().waitFor({ state: 'visible', timeout: driver.timeoutMs });
      assert.ok(await several.isVisible(), 'the Select Several Papers button');
      assert.equal(await page.locator('.quick-input-widget .quick-input-list input[type="checkbox"]').count(), 0);
      await shot('08-insert-citation-pick');
      await rows.nth(1).click();
      await driver.quickInput().waitFor({ state: 'hidden', timeout: driver.timeoutMs });
      await driver.waitUntil('the clicked paper cited', async () => {
        const now = await page
          .locator('.monaco-editor .view-line', { hasText: 'Timely feedback matters.' })
          .first()
          .innerText();
        return now !== before && /@/.test(now) ? true : undefined;
      });
      await shot('09-insert-citation-clicked');
    });

    await check('its title button turns ticks on, to cite several papers', async () => {
      await driver.runCommand('Research Desk: Insert Citation');
      await rows.first().waitFor({ state: 'visible', timeout: driver.timeoutMs });
      await several.click();
      await page
        .locator('.quick-input-widget .quick-input-count')
        .first()
        .waitFor({ state: 'visible', timeout: driver.timeoutMs });
      // Ticks, not a pick: a click on a row ticks it, and the pick stays open for more.
      await rows.nth(0).click();
      await rows.nth(2).click();
      await driver.waitUntil('two papers ticked', async () =>
        /2 Selected/.test(await page.locator('.quick-input-widget .quick-input-count').first().innerText())
          ? true
          : undefined,
      );
      assert.ok(await driver.quickInput().isVisible(), 'the pick closed on a click');
      await shot('10-insert-citation-several');
      await driver.closeQuickInput();
    });

    await check(
      'the offer to declare the bibliography stays in the status bar after its notification is gone',
      async () => {
        await driver.clearNotifications();
        await open('undeclared.md', 'No bibliography is declared here.');
        await driver.runCommand('Research Desk: Insert Citation');
        await rows.first().waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await rows.first().click();
        await driver.waitForNotification(/does not declare references\.bib/);
        // The toast goes (as toasts do after a few seconds); the offer stays.
        await driver.clearNotifications();
        const offer = page.locator('.part.statusbar .statusbar-item', { hasText: 'Declare references.bib' }).first();
        await offer.waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await shot('11-declare-offer-in-status-bar');
        await offer.click();
        await page
          .locator('.monaco-editor .view-line', { hasText: 'bibliography: references.bib' })
          .first()
          .waitFor({ state: 'visible', timeout: driver.timeoutMs });
        await offer.waitFor({ state: 'hidden', timeout: driver.timeoutMs });
        await shot('12-declared');
      },
    );
  },
});
