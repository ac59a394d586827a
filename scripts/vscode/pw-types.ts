/**
 * The small part of playwright-core's API these scripts use. playwright-core is loaded at
 * run time from the git-ignored cache (it is not a project dependency), so its own typings
 * are not available to `tsc`; these declarations mirror the real signatures.
 */

export interface Locator {
  click(options?: { timeout?: number; button?: 'left' | 'right' | 'middle'; force?: boolean }): Promise<void>;
  dblclick(options?: { timeout?: number }): Promise<void>;
  fill(value: string, options?: { timeout?: number }): Promise<void>;
  press(key: string, options?: { timeout?: number }): Promise<void>;
  pressSequentially(text: string, options?: { delay?: number; timeout?: number }): Promise<void>;
  hover(options?: { timeout?: number }): Promise<void>;
  focus(options?: { timeout?: number }): Promise<void>;
  waitFor(options?: { state?: 'attached' | 'detached' | 'visible' | 'hidden'; timeout?: number }): Promise<void>;
  isVisible(): Promise<boolean>;
  isChecked(options?: { timeout?: number }): Promise<boolean>;
  count(): Promise<number>;
  inputValue(options?: { timeout?: number }): Promise<string>;
  textContent(options?: { timeout?: number }): Promise<string | null>;
  innerText(options?: { timeout?: number }): Promise<string>;
  allInnerTexts(): Promise<string[]>;
  /** Runs `fn` in the page on every element the locator matches at that moment (one snapshot). */
  evaluateAll<R>(fn: (elements: Element[]) => R): Promise<R>;
  getAttribute(name: string, options?: { timeout?: number }): Promise<string | null>;
  screenshot(options?: { path?: string; timeout?: number }): Promise<Buffer>;
  locator(selector: string, options?: { hasText?: string | RegExp; has?: Locator }): Locator;
  getByRole(role: string, options?: { name?: string | RegExp; exact?: boolean }): Locator;
  getByText(text: string | RegExp, options?: { exact?: boolean }): Locator;
  filter(options: { hasText?: string | RegExp; has?: Locator; visible?: boolean }): Locator;
  first(): Locator;
  last(): Locator;
  nth(index: number): Locator;
  contentFrame(): FrameLocator;
}

export interface FrameLocator {
  locator(selector: string, options?: { hasText?: string | RegExp }): Locator;
  getByRole(role: string, options?: { name?: string | RegExp; exact?: boolean }): Locator;
  getByText(text: string | RegExp, options?: { exact?: boolean }): Locator;
  frameLocator(selector: string): FrameLocator;
  first(): FrameLocator;
}

export interface Keyboard {
  press(key: string, options?: { delay?: number }): Promise<void>;
  type(text: string, options?: { delay?: number }): Promise<void>;
  insertText(text: string): Promise<void>;
}

export interface ConsoleMessage {
  type(): string;
  text(): string;
}

export interface Route {
  request(): { url(): string };
  fulfill(response: { status?: number; headers?: Record<string, string>; body?: string }): Promise<void>;
}

/** The browser context of a page: the windows it opens, and request routing. */
export interface BrowserContext {
  route(url: string | RegExp, handler: (route: Route) => Promise<void> | void): Promise<void>;
  waitForEvent(event: 'page', options?: { timeout?: number }): Promise<Page>;
  pages(): Page[];
}

export interface Page {
  context(): BrowserContext;
  waitForURL(url: string | RegExp | ((url: URL) => boolean), options?: { timeout?: number }): Promise<void>;
  isClosed(): boolean;
  bringToFront(): Promise<void>;
  goto(
    url: string,
    options?: { timeout?: number; waitUntil?: 'load' | 'domcontentloaded' | 'networkidle' | 'commit' },
  ): Promise<unknown>;
  exposeFunction(name: string, callback: (...args: never[]) => unknown): Promise<void>;
  locator(selector: string, options?: { hasText?: string | RegExp; has?: Locator }): Locator;
  getByRole(role: string, options?: { name?: string | RegExp; exact?: boolean }): Locator;
  getByText(text: string | RegExp, options?: { exact?: boolean }): Locator;
  frameLocator(selector: string): FrameLocator;
  keyboard: Keyboard;
  screenshot(options?: { path?: string; fullPage?: boolean; timeout?: number }): Promise<Buffer>;
  waitForTimeout(ms: number): Promise<void>;
  waitForFunction(
    fn: string | (() => unknown),
    arg?: unknown,
    options?: { timeout?: number; polling?: number },
  ): Promise<unknown>;
  evaluate<R>(fn: string | (() => R)): Promise<R>;
  addInitScript(script: string): Promise<void>;
  waitForEvent(event: 'domcontentloaded' | 'load', options?: { timeout?: number }): Promise<Page>;
  on(event: 'console', listener: (msg: ConsoleMessage) => void): void;
  on(event: 'pageerror', listener: (err: Error) => void): void;
  on(event: 'close' | 'crash', listener: () => void): void;
  setDefaultTimeout(ms: number): void;
  close(): Promise<void>;
  url(): string;
}
