/**
 * Filters and monthly calls, as a person does it: Edit Search Filters from the
 * palette, step through a range (a bad one refused as you type, then a good one), a yes/no
 * filter and the quartile range, Apply; search, and the Research view's description names the
 * filters; the status-bar item, its tooltip, and its menu (Correct the count).
 */
import assert from 'node:assert/strict';
import { defineFlow } from '../harness';

const VIEW = 'researchDesk.results';

export const flow = defineFlow({
  name: 'filters',
  userSettings: { 'researchDesk.plan': 'pro' },
  timeoutMs: 240_000,
  async run({ driver, emulator, extensionId, check, shot }) {
    const page = driver.page;
    const pane = driver.viewPane(VIEW);
    const row = (text: string | RegExp) =>
      page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
    const title = async (): Promise<string> =>
      (await page.locator('.quick-input-widget .quick-input-title').innerText()).trim();

    await check('with a key set, the Research view is open', async () => {
      await driver.openViewContainer('researchDesk');
      await driver.runCommand('Research Desk: Set API Key');
      await driver.answerInput(emulator.keys.pro!, { password: true });
    });

    await check('Edit Search Filters lists every filter with its value, Apply, Clear all and Presets', async () => {
      await driver.runCommand('Research Desk: Edit Search Filters');
      await row('Publication years').waitFor({ state: 'visible', timeout: driver.timeoutMs });
      assert.match(await title(), /Edit Search Filters/);
      const texts = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
      for (const want of ['Apply', 'Clear all', 'Presets', 'Publication years', 'Study types'])
        assert.ok(
          texts.some((t) => t.includes(want)),
          `${want} missing from ${texts.slice(0, 8).join(' | ')}`,
        );
      await shot('01-filter-list');
    });

    await check('a reversed year range is refused as you type, with the rule; a good one is taken', async () => {
      await row('Publication years').click();
      await driver.waitUntil('the years step', async () => /Publication years/.test(await title()));
      await driver.quickInputBox().fill('2024-2019');
      await driver.waitUntil('a validation message', async () =>
        /The first year must not exceed the last year/.test(await driver.inputMessage()),
      );
      await shot('02-years-invalid');
      await driver.quickInputBox().fill('2019-2024');
      await driver.waitUntil('the message to clear', async () => !/must not exceed/.test(await driver.inputMessage()));
      await page.keyboard.press('Enter');
      await driver.waitUntil('back on the filter list', async () => /Edit Search Filters/.test(await title()));
      await driver.waitUntil('the years shown', async () =>
        /2019–2024/.test(await row('Publication years').innerText()),
      );
    });

    await check('a yes/no filter and the quartile range', async () => {
      await row('Human studies only').click();
      await driver.waitUntil('the human step', async () => /Human studies only/.test(await title()));
      await row('Yes').click();
      await driver.waitUntil('back on the filter list', async () => /Edit Search Filters/.test(await title()));
      await row('Journal quartile range').click();
      await driver.waitUntil('the quartile step', async () => /Journal quartile range/.test(await title()));
      await driver.quickInputBox().fill('1-1');
      await page.keyboard.press('Enter');
      await driver.waitUntil('back on the filter list', async () => /Edit Search Filters/.test(await title()));
      await driver.waitUntil('Q1 shown', async () => /Q1/.test(await row('Journal quartile range').innerText()));
      await shot('03-filters-edited');
      await row('Apply').click();
      await driver.quickInput().waitFor({ state: 'hidden', timeout: driver.timeoutMs });
    });

    await check('a search runs with the filters and the view description names them', async () => {
      await driver.runCommand('Research Desk: Search Papers');
      await driver.answerInput('exercise and depression');
      const description = await driver.waitUntil(
        'the description to name the filters',
        async () => {
          const d = (
            await pane
              .locator('.pane-header .description')
              .innerText()
              .catch(() => '')
          ).trim();
          return /2019–2024/.test(d) ? d : undefined;
        },
        30_000,
      );
      assert.match(description, /human/);
      assert.match(description, /Q1/);
      await shot('04-view-description');
    });

    const usageItem = () => page.locator('.part.statusbar .statusbar-item', { hasText: / \/ 500/ }).first();

    await check('the status bar shows the calls left this month, with its tooltip', async () => {
      const items = await driver.extensionStatusBarItems(extensionId);
      const item = items.find((i) => /\d+ \/ 500/.test(i.text));
      assert.ok(item, `status items: ${JSON.stringify(items)}`);
      assert.match(item.text, /499 \/ 500/);
      await usageItem().hover();
      const hover = page
        .locator('.monaco-hover, .workbench-hover')
        .filter({ hasText: /monthly calls/ })
        .first();
      await hover.waitFor({ state: 'visible', timeout: 10_000 });
      const text = await hover.innerText();
      assert.match(text, /Plan: Pro/);
      assert.match(text, /Resets on: \d{4}-\d{2}-01/);
      assert.match(text, /shared with the MCP server/);
      await shot('05-status-tooltip');
      await pane.hover();
    });

    await check('clicking it opens the menu; Correct the count sets the figure', async () => {
      await usageItem().click();
      await row('Correct the count').waitFor({ state: 'visible', timeout: driver.timeoutMs });
      const texts = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
      assert.ok(
        texts.some((t) => /Set plan/.test(t)) && texts.some((t) => /account dashboard/.test(t)),
        texts.join(' | '),
      );
      await shot('06-status-menu');
      await row('Correct the count').click();
      await driver.waitUntil('the count input', async () => /Correct the count/.test(await title()));
      await driver.quickInputBox().fill('412');
      await page.keyboard.press('Enter');
      await driver.waitUntil('88 / 500 in the status bar', async () => /88 \/ 500/.test(await usageItem().innerText()));
      await shot('07-status-corrected');
    });

    await check(
      'Escape with changes asks; Apply Them runs the search again under them (one call, as the row said)',
      async () => {
        await driver.runCommand('Research Desk: Edit Search Filters');
        await driver.waitUntil('the filter list', async () => /Edit Search Filters/.test(await title()));
        assert.match(await row('Apply').innerText(), /search “exercise and depression” again/);
        await row('Controlled studies only').click();
        await driver.waitUntil('the controlled step', async () => /Controlled studies only/.test(await title()));
        await row('Yes').click();
        await driver.waitUntil('back on the filter list', async () => /Edit Search Filters/.test(await title()));
        await page.keyboard.press('Escape');
        await driver.waitUntil('the discard question', async () => /not applied/.test(await title()));
        await shot('07a-escape-asks');
        await row('Apply Them').click();
        await driver.waitUntil(
          'the search again, with the new filter',
          async () => /controlled/.test(await pane.locator('.pane-header .description').innerText()),
          30_000,
        );
        await driver.waitUntil('87 / 500 in the status bar', async () =>
          /87 \/ 500/.test(await usageItem().innerText()),
        );
        await shot('07b-applied-and-searched');
      },
    );

    await check(
      'when the service says the month is used up, the item shows 0 with the reset date on a warning background',
      async () => {
        const control = emulator.control as { setUsage(key: string, used: number): unknown };
        await control.setUsage(emulator.keys.pro!, 500);
        await driver.runCommand('Research Desk: Search Papers');
        await driver.answerInput('walking and blood pressure');
        await driver.waitUntil(
          '0 / 500 in the status bar',
          async () => /\b0 \/ 500/.test(await usageItem().innerText()),
          30_000,
        );
        const cls = (await usageItem().getAttribute('class')) ?? '';
        const style = (await usageItem().getAttribute('style')) ?? '';
        assert.ok(
          /warning/.test(cls) || /background/.test(style),
          `no warning background: class="${cls}" style="${style}"`,
        );
        await usageItem().hover();
        const hover = page
          .locator('.monaco-hover, .workbench-hover')
          .filter({ hasText: /included calls of this month are used/ })
          .first();
        await hover.waitFor({ state: 'visible', timeout: 10_000 });
        assert.match(await hover.innerText(), /reset on \d{4}-\d{2}-\d{2}/);
        await shot('08-status-used-up');
      },
    );
  },
});
