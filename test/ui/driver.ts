/**
 * Reusable UI helpers for flows on a real VS Code workbench (VS Code 1.139 web workbench
 * served by VS Code's server, driven by playwright-core). Each helper does what a person
 * does: click the activity bar, run a command from the palette (F1), type into an input,
 * read the status bar and notifications, expand tree items, look inside a webview.
 * Every wait has a time limit and fails with a message naming what was awaited.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Locator, Page } from '../../scripts/vscode/pw-types';

export interface StatusBarEntry {
  /** DOM id: "<extensionId>.<itemId>" for extension items, e.g. "research-desk.research-desk.key". */
  id: string;
  text: string;
  ariaLabel: string;
}

export interface NotificationEntry {
  message: string;
  /** "info" | "warning" | "error" (from the toast's icon), or "" when unknown. */
  severity: string;
  buttons: string[];
  /** A progress notification still running (withProgress, location Notification). */
  inProgress: boolean;
}

export const DEFAULT_TIMEOUT_MS = 15_000;

export class WorkbenchDriver {
  constructor(
    readonly page: Page,
    readonly screenshotDir: string,
    readonly timeoutMs = DEFAULT_TIMEOUT_MS,
  ) {
    mkdirSync(screenshotDir, { recursive: true });
  }

  // ------------------------------------------------------------------ basic waiting

  /** Polls `probe` until it returns a value that is not undefined/false. */
  async waitUntil<T>(
    what: string,
    probe: () => Promise<T | undefined | false>,
    timeoutMs = this.timeoutMs,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        const v = await probe();
        if (v !== undefined && v !== false) return v;
      } catch (e) {
        last = e;
      }
      if (Date.now() > deadline) {
        const why = last instanceof Error ? ` (last error: ${last.message.split('\n')[0]})` : '';
        throw new Error(`Timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${why}`);
      }
      await this.page.waitForTimeout(150);
    }
  }

  async screenshot(name: string): Promise<string> {
    const file = join(this.screenshotDir, `${name}.png`);
    await this.page.screenshot({ path: file, timeout: this.timeoutMs });
    return file;
  }

  /**
   * Waits for the workbench shell, then for the status bar's "Activating Extensions..." to
   * stay away for a second (it appears shortly after the shell while the extension host starts).
   */
  async ready(timeoutMs = 60_000): Promise<void> {
    await this.page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: timeoutMs });
    await this.page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
    let quietSince = Date.now();
    await this.waitUntil(
      'extensions to finish activating',
      async () => {
        const busy = await this.page.locator('#status\\.progress', { hasText: 'Activating Extensions' }).isVisible();
        if (busy) quietSince = Date.now();
        return !busy && Date.now() - quietSince >= 1000;
      },
      timeoutMs,
    );
  }

  // ----------------------------------------------------------- views and activity bar

  /** The activity bar entry of a view container declared in package.json (e.g. "researchDesk"). */
  activityBarItem(containerId: string): Locator {
    return this.page.locator(
      `.part.activitybar a.action-label[class*="activity-workbench-view-extension-${containerId}"]`,
    );
  }

  /** The id of the view container shown in the primary side bar, if any. */
  async activeSideBarContainer(): Promise<string | undefined> {
    const sideBar = this.page.locator('.part.sidebar');
    if (!(await sideBar.isVisible())) return undefined;
    return (await sideBar.getAttribute('data-active-composite')) ?? undefined;
  }

  /** Clicks the container's activity bar icon (unless it is already showing). */
  async openViewContainer(containerId: string): Promise<void> {
    const want = `workbench.view.extension.${containerId}`;
    if ((await this.activeSideBarContainer()) === want) return;
    await this.activityBarItem(containerId).click({ timeout: this.timeoutMs });
    await this.waitUntil(`side bar to show ${want}`, async () => (await this.activeSideBarContainer()) === want);
  }

  /** The pane of a view by its id (e.g. "researchDesk.results"). */
  viewPane(viewId: string): Locator {
    const iconClass = `view-${viewId.replace(/\./g, '-')}`;
    return this.page.locator('.part.sidebar .pane', {
      has: this.page.locator(`.pane-header .icon.${cssEscape(iconClass)}`),
    });
  }

  /** Collapses a view's pane in its container (as a person clicks its header), if it is expanded. */
  async collapseView(viewId: string): Promise<void> {
    const header = this.viewPane(viewId).locator('.pane-header').first();
    if (!(await header.isVisible())) return;
    if ((await header.getAttribute('aria-expanded')) === 'true') {
      await header.click({ timeout: this.timeoutMs });
      await this.waitUntil(
        `view ${viewId} to collapse`,
        async () => (await header.getAttribute('aria-expanded')) === 'false',
      );
    }
  }

  /** The welcome content of a view, when shown ("viewsWelcome"). */
  welcomeContent(viewId: string): Locator {
    return this.viewPane(viewId).locator('.welcome-view-content');
  }

  /** The button labels of a view's welcome content ([] when no welcome content is shown). */
  async welcomeButtons(viewId: string): Promise<string[]> {
    const content = this.welcomeContent(viewId);
    if (!(await content.isVisible())) return [];
    return (await content.locator('.monaco-button').allInnerTexts()).map((t) => t.trim());
  }

  /** Rows of a tree/list view, as their visible text. */
  async treeItems(viewId: string): Promise<string[]> {
    return (await this.viewPane(viewId).locator('.monaco-list-row').allInnerTexts()).map((t) => t.trim());
  }

  /** Expands a collapsed tree item by its label (click on the twistie row). */
  async expandTreeItem(viewId: string, label: string | RegExp): Promise<void> {
    const row = this.viewPane(viewId).locator('.monaco-list-row', { hasText: label }).first();
    await row.waitFor({ state: 'visible', timeout: this.timeoutMs });
    if ((await row.getAttribute('aria-expanded')) === 'false') {
      await row.locator('.monaco-tl-twistie').click({ timeout: this.timeoutMs });
      await this.waitUntil(
        `tree item ${String(label)} to expand`,
        async () => (await row.getAttribute('aria-expanded')) === 'true',
      );
    }
  }

  /**
   * Right-clicks `target` and runs the context menu item labelled `label`. The menu drops a
   * click that lands while it is still settling (seen on loaded machines: the item highlights
   * and the menu stays open), so a menu still open after the click gets Enter on the item.
   */
  async contextMenu(target: Locator, label: string): Promise<void> {
    await target.click({ button: 'right' });
    const menu = this.page.locator('.context-view .monaco-menu');
    const item = menu.locator('.action-item', { hasText: label }).first();
    await item.waitFor({ state: 'visible', timeout: this.timeoutMs });
    await item.hover();
    await item.click();
    const closed = await menu
      .waitFor({ state: 'hidden', timeout: 3_000 })
      .then(() => true)
      .catch(() => false);
    if (closed) return;
    await item.hover();
    await this.page.keyboard.press('Enter');
    await menu.waitFor({ state: 'hidden', timeout: this.timeoutMs });
  }

  // --------------------------------------------------------------- command palette

  quickInput(): Locator {
    return this.page.locator('.quick-input-widget');
  }

  quickInputBox(): Locator {
    return this.page.locator('.quick-input-widget .quick-input-box input');
  }

  /** Closes any open quick input. */
  async closeQuickInput(): Promise<void> {
    if (await this.quickInput().isVisible()) {
      await this.page.keyboard.press('Escape');
      await this.quickInput().waitFor({ state: 'hidden', timeout: this.timeoutMs });
    }
  }

  /** Runs a command by its title as shown in the palette, e.g. "Research Desk: Set API Key". */
  async runCommand(title: string): Promise<void> {
    await this.closeQuickInput();
    // The palette closes when focus leaves it, as a page opening in the editor can take it right then (seen once with
    // the walkthrough): the palette is opened again once.
    for (let attempt = 0; ; attempt++) {
      await this.page.keyboard.press('F1');
      await this.quickInputBox().waitFor({ state: 'visible', timeout: this.timeoutMs });
      try {
        await this.quickInputBox().fill(`>${title}`, { timeout: 5_000 });
        break;
      } catch (err) {
        if (attempt >= 1) throw err;
      }
    }
    const q = cssString(title);
    const qc = cssString(`${title},`);
    const row = this.page
      .locator(
        `.quick-input-list .monaco-list-row[aria-label=${q}], .quick-input-list .monaco-list-row[aria-label^=${qc}]`,
      )
      .first();
    try {
      await row.waitFor({ state: 'visible', timeout: this.timeoutMs });
    } catch {
      const offered = await this.page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
      throw new Error(
        `Command "${title}" is not in the command palette (offered: ${offered.slice(0, 8).join(' | ') || 'nothing'})`,
      );
    }
    const palettePlaceholder = await this.quickInputBox().getAttribute('placeholder');
    await row.click({ timeout: this.timeoutMs });
    // The palette closes, or is replaced by the command's own input / pick.
    await this.waitUntil(`the command palette to run "${title}"`, async () => {
      if (!(await this.quickInput().isVisible())) return true;
      const box = this.quickInputBox();
      return (
        (await box.getAttribute('placeholder')) !== palettePlaceholder || !(await box.inputValue()).startsWith('>')
      );
    });
  }

  /**
   * Reloads the window the way a person does, with Developer: Reload Window: the workbench saves its state (editors,
   * webview state) before it unloads, which reloading the page from outside does not wait for. Not through runCommand:
   * it reads the palette until it closes, and a read begun as the page navigates away waits out its whole timeout.
   */
  async reloadWindow(): Promise<void> {
    const loaded = this.page.waitForEvent('domcontentloaded', { timeout: 60_000 });
    await this.closeQuickInput();
    await this.page.keyboard.press('F1');
    await this.quickInputBox().waitFor({ state: 'visible', timeout: this.timeoutMs });
    await this.quickInputBox().fill('>Developer: Reload Window');
    await this.page
      .locator('.quick-input-list .monaco-list-row[aria-label^="Developer: Reload Window"]')
      .first()
      .waitFor({ state: 'visible', timeout: this.timeoutMs });
    await this.page.keyboard.press('Enter');
    await loaded;
    await this.ready();
  }

  /**
   * Types into the input box a command opened (showInputBox / QuickPick) and confirms.
   * With `password: true` it first checks that the box masks what is typed.
   */
  async answerInput(
    text: string,
    options: { password?: boolean; expectTitle?: string | RegExp; beforeConfirm?: () => Promise<void> } = {},
  ): Promise<void> {
    const box = this.quickInputBox();
    await box.waitFor({ state: 'visible', timeout: this.timeoutMs });
    if (options.expectTitle !== undefined) {
      const want = options.expectTitle;
      await this.waitUntil(`input titled ${String(want)}`, async () => {
        const title = (await this.page.locator('.quick-input-widget .quick-input-title').innerText()).trim();
        return typeof want === 'string' ? title === want : want.test(title);
      });
    }
    if (options.password) {
      await this.waitUntil(
        'a password input (type="password")',
        async () => (await box.getAttribute('type')) === 'password',
        5000,
      );
    }
    await box.fill(text);
    await options.beforeConfirm?.();
    await box.press('Enter');
    await this.quickInput().waitFor({ state: 'hidden', timeout: this.timeoutMs });
  }

  /** The message shown under the input box (validation or prompt). */
  async inputMessage(): Promise<string> {
    return (await this.page.locator('.quick-input-widget .quick-input-message').innerText()).trim();
  }

  // ------------------------------------------------------------------ status bar

  // One snapshot of the DOM: reading item by item after a count raced with VS Code removing
  // an item, and the read of the vanished item then waited out Playwright's 30 s timeout.
  async statusBarItems(): Promise<StatusBarEntry[]> {
    return this.page.locator('.part.statusbar .statusbar-item').evaluateAll((items) =>
      items
        // Playwright's isVisible: a box, and not visibility: hidden (the callback runs in the page).
        .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
        .map((it) => ({
          id: it.id,
          text: (it as HTMLElement).innerText.trim(),
          ariaLabel: it.getAttribute('aria-label') ?? '',
        })),
    );
  }

  /** Status bar items contributed by an extension (DOM id starts with the extension id). */
  async extensionStatusBarItems(extensionId: string): Promise<StatusBarEntry[]> {
    return (await this.statusBarItems()).filter((s) => s.id.toLowerCase().startsWith(`${extensionId.toLowerCase()}.`));
  }

  // --------------------------------------------------------------- notifications

  // One snapshot, for the reason given at statusBarItems: a toast cleared mid-read stalled the read.
  async notifications(): Promise<NotificationEntry[]> {
    return this.page.locator('.notifications-toasts .notification-toast').evaluateAll((toasts) =>
      toasts
        .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
        .map((t) => {
          // No named functions in here: tsx's keepNames would wrap them in a helper the page lacks.
          const message = t.querySelector<HTMLElement>('.notification-list-item-message')?.innerText.trim() ?? '';
          const iconClass = t.querySelector('.notification-list-item-icon')?.getAttribute('class') ?? '';
          const severity = /codicon-error/.test(iconClass)
            ? 'error'
            : /codicon-warning/.test(iconClass)
              ? 'warning'
              : /codicon-info/.test(iconClass)
                ? 'info'
                : '';
          const buttons = [...t.querySelectorAll('.notification-list-item-buttons-container .monaco-button')].map((b) =>
            (b as HTMLElement).innerText.trim(),
          );
          const inProgress = t.querySelector('.monaco-progress-container.active') !== null;
          return { message, severity, buttons, inProgress };
        }),
    );
  }

  /** Waits for a toast whose message matches (progress toasts still running are skipped). */
  async waitForNotification(match: RegExp, timeoutMs = this.timeoutMs): Promise<NotificationEntry> {
    return this.waitUntil(
      `a notification matching ${String(match)}`,
      async () => (await this.notifications()).find((n) => !n.inProgress && match.test(n.message)),
      timeoutMs,
    ).catch(async (e: unknown) => {
      const seen = (await this.notifications().catch(() => [])).map((n) => `[${n.severity}] ${n.message}`);
      throw new Error(
        `${e instanceof Error ? e.message : String(e)}; notifications shown: ${seen.join(' | ') || 'none'}`,
      );
    });
  }

  /** Clicks a button on the toast whose message matches. */
  async clickNotificationButton(match: RegExp, button: string): Promise<void> {
    const toast = this.page.locator('.notifications-toasts .notification-toast', { hasText: match }).first();
    await toast
      .locator('.notification-list-item-buttons-container .monaco-button', { hasText: button })
      .first()
      .click({ timeout: this.timeoutMs });
  }

  /** Waits for the modal dialog whose message matches and returns its text (message and detail). */
  async waitForDialog(match: RegExp, timeoutMs = this.timeoutMs): Promise<string> {
    const box = this.page.locator('.monaco-dialog-box', { hasText: match }).first();
    await box.waitFor({ state: 'visible', timeout: timeoutMs });
    return (await box.innerText()).replace(/\s+/g, ' ').trim();
  }

  /** Clicks a button of the modal dialog whose message matches. */
  async clickDialogButton(match: RegExp, button: string): Promise<void> {
    const box = this.page.locator('.monaco-dialog-box', { hasText: match }).first();
    await box.locator('.dialog-buttons .monaco-button', { hasText: button }).first().click({ timeout: this.timeoutMs });
    await box.waitFor({ state: 'hidden', timeout: this.timeoutMs });
  }

  /** Clears all notifications (so the next wait sees only new ones). */
  async clearNotifications(): Promise<void> {
    await this.runCommand('Notifications: Clear All Notifications');
    await this.waitUntil('notifications to clear', async () => (await this.notifications()).length === 0);
  }

  // -------------------------------------------------------------------- webviews

  /**
   * The content of a webview (panel or view). VS Code nests it: an outer iframe.webview
   * hosts an inner iframe#active-frame holding the extension's HTML. `index` picks among
   * several visible webviews (default the first).
   */
  webviewContent(index = 0): FrameLocator {
    return this.page.locator('iframe.webview.ready').nth(index).contentFrame().frameLocator('iframe#active-frame');
  }

  /** Waits until a webview shows an element matching `selector`, then returns it. */
  async webviewElement(selector: string, index = 0): Promise<Locator> {
    const el = this.webviewContent(index).locator(selector).first();
    await el.waitFor({ state: 'visible', timeout: this.timeoutMs });
    return el;
  }

  // ---------------------------------------------------------------------- storage

  /**
   * An extension's globalState as the workbench has stored it in the browser (IndexedDB), which is what a reloaded
   * window starts from; undefined when nothing is stored yet. VS Code writes there about 100 ms after a change, and a
   * change still waiting when the page unloads may be lost, so a test that reloads waits for this first.
   */
  async storedGlobalState(extensionId: string): Promise<Record<string, unknown> | undefined> {
    // A string, not a function: the page runs it as it is (tsx would wrap a function's inner functions in a helper).
    const raw = await this.page.evaluate<string | undefined>(`(async () => {
      const read = (request) => new Promise((resolve, reject) => {
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      for (const info of await indexedDB.databases()) {
        if (!info.name || !info.name.startsWith('vscode-web-state-db-')) continue;
        const db = await read(indexedDB.open(info.name));
        try {
          if (!db.objectStoreNames.contains('ItemTable')) continue;
          const value = await read(db.transaction('ItemTable').objectStore('ItemTable').get(${JSON.stringify(extensionId)}));
          if (typeof value === 'string') return value;
        } finally {
          db.close();
        }
      }
      return undefined;
    })()`);
    return raw === undefined ? undefined : (JSON.parse(raw) as Record<string, unknown>);
  }

  // ---------------------------------------------------------------------- editors

  /** Titles of the open editor tabs. */
  async editorTabs(): Promise<string[]> {
    return (await this.page.locator('.part.editor .tabs-container .tab .label-name').allInnerTexts()).map((t) =>
      t.trim(),
    );
  }
}

/** A CSS attribute value as a double-quoted string. */
function cssString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Escapes a class name for a CSS selector. */
function cssEscape(value: string): string {
  return value.replace(/([^a-zA-Z0-9_-])/g, '\\$1');
}
