/** Shared helpers for the extension-host suites: the extension's test API, the emulator, settings. */
import { createServer } from 'node:net';
import * as vscode from 'vscode';
import type { CoreInternals } from '../../src/composition/core';
import type { ResearchDeskTestApi } from '../../src/composition/entry';
import { EXTENSION_ID, Settings } from '../../src/platform/ids';
import { escapeHtml } from '../../src/render/escape';
import { DEMO_KEYS, startEmulator } from '../emulator';
import { VSCODE_LINK } from '../vscodeLinks';

export { DEMO_KEYS };

export function extension(): vscode.Extension<ResearchDeskTestApi | undefined> {
  const ext = vscode.extensions.getExtension<ResearchDeskTestApi | undefined>(EXTENSION_ID);
  if (!ext) throw new Error(`Extension ${EXTENSION_ID} is not installed in this window.`);
  return ext;
}

/** Activates the extension (if needed) and returns its test API, once activation work is done. */
export async function api(): Promise<ResearchDeskTestApi> {
  const exported = await extension().activate();
  if (!exported) throw new Error('activate() returned no test API (is the extension running in production mode?).');
  await exported.ready;
  return exported;
}

/**
 * Loads the core (as the first command would) and returns it, services and all (filters, usage, threads, citations).
 */
export async function testCore(): Promise<CoreInternals> {
  return (await api()).core();
}

let emulator: Promise<{ url: string; close(): Promise<void> }> | undefined;

/** The emulator: RESEARCH_DESK_EMULATOR_URL when the runner started one, else one started here. */
export function emulatorUrl(): Promise<string> {
  const fromEnv = process.env.RESEARCH_DESK_EMULATOR_URL;
  if (fromEnv) return Promise.resolve(fromEnv.replace(/\/+$/, ''));
  const started = (emulator ??= startEmulator({ port: 0, rateLimits: false, quiet: true, speed: 50 }));
  return started.then((e) => e.url.replace(/\/+$/, ''));
}

export async function stopEmulator(): Promise<void> {
  const e = emulator;
  emulator = undefined;
  if (e) await (await e).close();
}

/** An http URL on 127.0.0.1 where nothing listens (a port just released). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration();

/** Sets user (global) settings, returning a function that restores the previous user values. */
export async function setUserSettings(values: Record<string, unknown>): Promise<() => Promise<void>> {
  const previous: Record<string, unknown> = {};
  for (const [id, value] of Object.entries(values)) {
    previous[id] = config().inspect(id)?.globalValue;
    await config().update(id, value, vscode.ConfigurationTarget.Global);
  }
  return async () => {
    for (const [id, value] of Object.entries(previous))
      await config().update(id, value, vscode.ConfigurationTarget.Global);
  };
}

/** Points the extension at the emulator through user settings; returns the restore function. */
export async function useEmulatorSettings(): Promise<{ url: string; restore: () => Promise<void> }> {
  const url = await emulatorUrl();
  const restore = await setUserSettings({ [Settings.baseUrl]: url, [Settings.authScheme]: undefined });
  return { url, restore };
}

/**
 * useEmulatorSettings, for suites that store their own keys: `restore()` also puts back the key that was stored
 * for the emulator's origin before (or deletes the suite's key when there was none), then the settings.
 */
export async function useEmulatorKeepingKey(): Promise<{ url: string; origin: string; restore: () => Promise<void> }> {
  const desk = await api();
  const s = await useEmulatorSettings();
  const origin = new URL(s.url).origin;
  const savedKey = await desk.keys.get(origin);
  return {
    url: s.url,
    origin,
    restore: async () => {
      if (savedKey) await desk.keys.set(savedKey, origin);
      else await desk.keys.delete(origin);
      await s.restore();
    },
  };
}

/** Calls a method of the emulator's control API (the runner starts it with `controlApi: true`). */
export async function control<T>(method: string, ...args: unknown[]): Promise<T> {
  const url = await emulatorUrl();
  const res = await fetch(`${url}/_emulator/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  if (!res.ok) throw new Error(`emulator control ${method}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { result: T }).result;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The minor version of the VS Code running the suite (1.<minor>). */
export const vscodeMinor = (): number => Number(vscode.version.split('.')[1]);

/**
 * Skips the test, or (called in a suiteSetup) every test of the suite, where VS Code is older than 1.<minor>. The
 * reporter prints the reason next to each skipped test, so a run on the oldest VS Code says what it left out.
 */
export function skipBelowVsCode(ctx: Mocha.Context, minor: number, why: string): void {
  if (vscodeMinor() >= minor) return;
  // In a hook (suiteSetup) the reason goes on its suite, so every test of it shows it.
  const runnable: { type?: string; parent?: Mocha.Suite } | undefined = ctx.test;
  const target = runnable?.type === 'hook' ? runnable.parent : runnable;
  if (target) Object.assign(target, { skipReason: `needs VS Code 1.${minor}+, this is ${vscode.version}: ${why}` });
  ctx.skip();
}

/**
 * Waits until `pending` (a command showing a quick pick or input box) settles, pressing
 * Enter on the quick input every 100 ms: the way a person accepts the highlighted item.
 * Presses that come before the input is shown, or while it is invalid, do nothing.
 */
export async function acceptQuickInput<T>(pending: Thenable<T>, attempts = 100): Promise<T> {
  let settled = false;
  const p = Promise.resolve(pending).finally(() => (settled = true));
  for (let i = 0; i < attempts && !settled; i++) {
    await sleep(100);
    if (!settled) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  }
  return p;
}

/**
 * Waits for `predicate` to hold, checking every 50 ms, for `attempts` × 50 ms of wall-clock time and never less than
 * 10 s: a CI machine busy with other work can take seconds over what a quiet one needs. A wait only ends early when
 * the predicate holds, so a longer bound costs a passing test nothing.
 */
export async function eventually(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  attempts = 200,
): Promise<void> {
  const started = Date.now();
  const deadline = started + Math.max(10_000, attempts * 50);
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) break;
    await sleep(50);
  }
  throw new Error(`Timed out waiting until ${what} (${((Date.now() - started) / 1000).toFixed(1)} s).`);
}

/** Resolves with the next event from `event` (rejects when none comes within `ms`). */
export function nextEvent<T>(event: vscode.Event<T>, what: string, ms = 5000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`No ${what} event.`));
    }, ms);
    const sub = event((e) => {
      clearTimeout(timer);
      sub.dispose();
      resolve(e);
    });
  });
}

// ---- Workspace documents (the runner opens RESEARCH_DESK_WORKSPACE as the workspace folder) ----

let dirCounter = 0;

/** A fresh folder under `area` of the test workspace, for one test. */
export function workspaceDir(area: string): vscode.Uri {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('The extension-host run opens a workspace folder (RESEARCH_DESK_WORKSPACE).');
  return vscode.Uri.joinPath(f.uri, area, `t${Date.now()}-${++dirCounter}`);
}

export async function writeFile(uri: vscode.Uri, text: string): Promise<void> {
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
}

/** The file's text on disk, or undefined when it does not exist. */
export async function readDisk(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

/**
 * Writes a document and opens it (not shown); returns it with the position of `|` (removed from the text; else the
 * end).
 */
export async function writeAndOpen(
  uri: vscode.Uri,
  textWithCursor: string,
): Promise<{ doc: vscode.TextDocument; at: vscode.Position }> {
  const offset = textWithCursor.indexOf('|');
  const text = textWithCursor.replace('|', '');
  await writeFile(uri, text);
  const doc = await vscode.workspace.openTextDocument(uri);
  return { doc, at: doc.positionAt(offset < 0 ? text.length : offset) };
}

/** Writes a document, shows it in an editor and puts the cursor at `|` (removed from the text; else the end). */
export async function openDoc(uri: vscode.Uri, textWithCursor: string): Promise<vscode.TextEditor> {
  const { doc, at } = await writeAndOpen(uri, textWithCursor);
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  editor.selection = new vscode.Selection(at, at);
  return editor;
}

/** A research-agent thread created over plain HTTP with `key` (what Ask the Research Agent sends); its id. */
export async function createThread(key: string, message: string, mode?: string): Promise<string> {
  const res = await fetch(`${await emulatorUrl()}/v1/threads`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ input_message: message, ...(mode ? { mode } : {}) }),
  });
  if (res.status !== 200) throw new Error(`creating a thread: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { thread_id: string }).thread_id;
}

/** A finished research-agent thread, created over plain HTTP with `key`. */
export async function finishedThread(key: string, message: string): Promise<string> {
  const id = await createThread(key, message, 'pro');
  await control('completeRuns');
  return id;
}

/** The title the service gave a thread (generated by the service, not the brief as sent), read over HTTP. */
export async function threadTitle(key: string, threadId: string): Promise<string> {
  const res = await fetch(`${await emulatorUrl()}/v1/threads/${threadId}`, { headers: { 'x-api-key': key } });
  if (res.status !== 200) throw new Error(`reading thread ${threadId}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { title: string }).title;
}

/** `text` as the answer page's HTML shows it (escaped as the renderer escapes it), as a regular expression source. */
export function htmlPattern(text: string): string {
  return escapeHtml(text).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

// ---- Money and untrusted text: fresh keys, what the emulator saw, and what reached the screen ----

export interface EmuRequest {
  route: string;
  method: string;
  query: Record<string, string | string[]>;
  keyLabel: string | null;
  status: number;
  charged: number;
}

export interface EmuCharge {
  keyLabel: string;
  calls: number;
  reason: string;
  threadId?: string;
}

let keyCounter = 0;

/**
 * A fresh key of its own (its requests, threads and charges are this test's only), stored for the emulator's origin.
 */
export async function provisionedKey(
  prefix: string,
  plan = 'pro',
  extra: Record<string, unknown> = {},
): Promise<{ label: string; key: string }> {
  const label = `${prefix}-${Date.now()}-${++keyCounter}`;
  const key = await control<string>('provisionKey', { plan, label, ...extra });
  await (await api()).keys.set(key, new URL(await emulatorUrl()).origin);
  return { label, key };
}

/** Requests the emulator answered for this key's label (optionally one route only). */
export async function requestsOf(label: string, route?: string): Promise<EmuRequest[]> {
  return (await control<EmuRequest[]>('requests')).filter(
    (r) => r.keyLabel === label && (route === undefined || r.route === route),
  );
}

/** Calls the emulator charged to this key's label. */
export async function chargedTo(label: string): Promise<number> {
  return (await control<EmuCharge[]>('charges')).filter((c) => c.keyLabel === label).reduce((s, c) => s + c.calls, 0);
}

export interface SinkRecord {
  /**
   * The API that received the text (showErrorMessage, setStatusBarMessage, withProgress, showInputBox,
   * showQuickPick...).
   */
  sink: string;
  text: string;
}

type Answer = (sink: string, message: string, items: readonly string[]) => string | undefined;

/**
 * Records every text Research Desk hands to the workbench's notification, status-bar message, progress, input-box and
 * Quick Pick APIs (the extension and this suite share one `vscode` API object), passing each call through unchanged.
 * `answer` may pick a button of a notification the way a person would (the notification is then not shown).
 */
export function observeSinks(answer?: Answer): { records: SinkRecord[]; dispose(): void } {
  const records: SinkRecord[] = [];
  const w: Record<string, unknown> = vscode.window;
  const saved = new Map<string, unknown>();
  const wrap = (name: string, make: (original: (...a: unknown[]) => unknown) => (...a: unknown[]) => unknown): void => {
    const original = w[name] as (...a: unknown[]) => unknown;
    saved.set(name, original);
    w[name] = make(original.bind(vscode.window));
    if (w[name] === original) throw new Error(`vscode.window.${name} cannot be observed in this VS Code`);
  };
  const titles = (items: unknown[]): string[] =>
    items.flatMap((i) =>
      typeof i === 'string'
        ? [i]
        : i && typeof i === 'object' && 'title' in i && typeof i.title === 'string'
          ? [i.title]
          : [],
    );
  for (const name of ['showErrorMessage', 'showWarningMessage', 'showInformationMessage']) {
    wrap(name, (original) => (message: unknown, ...rest: unknown[]) => {
      const items = titles(rest);
      records.push({ sink: name, text: String(message) }, ...items.map((text) => ({ sink: `${name}:button`, text })));
      const chosen = answer?.(name, String(message), items);
      // A person clicks a moment later, never in the same tick.
      return chosen !== undefined ? sleep(50).then(() => chosen) : original(message, ...rest);
    });
  }
  wrap('setStatusBarMessage', (original) => (text: unknown, ...rest: unknown[]) => {
    records.push({ sink: 'setStatusBarMessage', text: String(text) });
    return original(text, ...rest);
  });
  wrap('withProgress', (original) => (options: unknown, task: unknown) => {
    const o = options as { title?: string };
    if (o.title) records.push({ sink: 'withProgress', text: o.title });
    const work = task as (p: vscode.Progress<{ message?: string }>, t: vscode.CancellationToken) => unknown;
    return original(options, (progress: vscode.Progress<{ message?: string }>, token: vscode.CancellationToken) =>
      work(
        {
          report: (v) => (
            v.message && records.push({ sink: 'withProgress:message', text: v.message }),
            progress.report(v)
          ),
        },
        token,
      ),
    );
  });
  wrap('showInputBox', (original) => (options: unknown, ...rest: unknown[]) => {
    const o = (options ?? {}) as { title?: string; prompt?: string; placeHolder?: string };
    for (const text of [o.title, o.prompt, o.placeHolder]) if (text) records.push({ sink: 'showInputBox', text });
    return original(options, ...rest);
  });
  wrap('showQuickPick', (original) => (items: unknown, options: unknown, ...rest: unknown[]) => {
    void Promise.resolve(items).then((list) => {
      for (const i of (list as (string | vscode.QuickPickItem)[]) ?? [])
        for (const text of typeof i === 'string' ? [i] : [i.label, i.description, i.detail])
          if (text) records.push({ sink: 'showQuickPick', text });
    });
    return original(items, options, ...rest);
  });
  return {
    records,
    dispose: () => {
      for (const [name, original] of saved) w[name] = original;
    },
  };
}

/** The records that VS Code would render with a clickable link, or (status-bar text) an icon. */
export function activeSyntax(records: readonly SinkRecord[]): SinkRecord[] {
  return records.filter(
    (r) => [...r.text.matchAll(VSCODE_LINK)].length > 0 || (r.sink === 'setStatusBarMessage' && r.text.includes('$(')),
  );
}
