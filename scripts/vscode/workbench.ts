/**
 * Opens a VS Code workbench page (served by server.ts) in headless Chromium through the
 * cached playwright-core, with the smoke-test driver hooks wired:
 *   codeAutomationExit(code)  -> resolves `exitCode` (0 when the test entry's run() resolved)
 *   codeAutomationLog(type, args) -> printed with a prefix (the extension host's console)
 */
import { type PwBrowser, type PwContext, type VsCodeCache, launchChromium } from './cache';
import type { Page } from './pw-types';
import { log } from './util';

export interface OpenedWorkbench {
  page: Page;
  context: PwContext;
  /** Settles with the code the workbench reports through codeAutomationExit. */
  exitCode: Promise<number>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Prefix for the forwarded log lines; undefined = do not print them. */
  logPrefix?: string;
  /** Also print the page's own console errors (noisy: gallery/telemetry failures). */
  pageConsole?: boolean;
  viewport?: { width: number; height: number };
  /** Time limit for the initial page load. */
  gotoTimeoutMs?: number;
  /** Print the workbench's known offline noise too (gallery, telemetry, sockets...). */
  verboseLog?: boolean;
  /** Receives every forwarded log line (e.g. to look for a marker). */
  onLog?: (line: string) => void;
  /** Script run in the page before the workbench's own (benches watch the DOM with it). */
  initScript?: string;
}

export async function openWorkbench(
  browser: PwBrowser,
  url: string,
  options: OpenOptions = {},
): Promise<OpenedWorkbench> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1400, height: 900 } });
  const page = await context.newPage();
  let resolveExit!: (code: number) => void;
  const exitCode = new Promise<number>((r) => (resolveExit = r));
  await page.exposeFunction('codeAutomationExit', (code: number) => {
    resolveExit(typeof code === 'number' ? code : Number(code));
  });
  await page.exposeFunction('codeAutomationLog', (type: string, args: unknown) => {
    const text = formatArgs(args);
    options.onLog?.(text);
    if (options.logPrefix !== undefined && (options.verboseLog || !isNoise(text))) {
      for (const line of text.split('\n')) {
        process.stdout.write(`${options.logPrefix}${type === 'error' ? ' ERROR' : ''} ${line}\n`);
      }
    }
  });
  if (options.pageConsole) {
    page.on('console', (m) => {
      if (m.type() === 'error') log('page', m.text());
    });
  }
  page.on('crash', () => resolveExit(97));
  if (options.initScript) await page.addInitScript(options.initScript);
  await page.goto(url, { timeout: options.gotoTimeoutMs ?? 60_000, waitUntil: 'domcontentloaded' });
  return {
    page,
    context,
    exitCode,
    async close() {
      await context.close().catch(() => undefined);
    },
  };
}

/**
 * Log lines the workbench always prints on an offline machine (see
 * /work/shared/real-vscode-testing.md "Noise to expect"); hidden unless
 * RESEARCH_DESK_VERBOSE=1. Our suite's own output never matches these.
 */
const NOISE = [
  /getaddrinfo ENOTFOUND/,
  /^\s*at .*\/static\/out\/vs\//m,
  /\[Service Worker\] registration/,
  /authentication provider 'github'/,
  /Long running operations during shutdown are unsupported in the web/,
  /^(Resolving|Resolved) connection token/,
  /^Creating a socket/,
  /^\[reconnection-grace-time\]/,
  /^Updating additional builtin extensions cache/,
  /^\[AgentHost:remote\]/,
  /^\[AgentHost\] No signed-in session/,
  /^\[AccountPolicyGate\]/,
];

function isNoise(text: string): boolean {
  if (process.env.RESEARCH_DESK_VERBOSE === '1') return false;
  return NOISE.some((re) => re.test(text));
}

function formatArgs(args: unknown): string {
  const list = Array.isArray(args) ? (args as unknown[]) : [args];
  return list
    .map((a) => {
      if (typeof a === 'string') return a;
      try {
        return JSON.stringify(a);
      } catch {
        return String(a);
      }
    })
    .join(' ');
}

/** Waits until the workbench shell is on screen (the activity bar exists). */
export async function waitForWorkbench(page: Page, timeoutMs = 60_000): Promise<void> {
  await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: timeoutMs });
}

export { launchChromium, type PwBrowser, type VsCodeCache };
