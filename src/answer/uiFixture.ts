/**
 * UI flows only (the browser cannot reach the test API): RESEARCH_DESK_UI_FIXTURE names a JSON Thread file in the
 * workspace folder, which the answer view shows when the core loads. Unset, nothing is read.
 */
import * as vscode from 'vscode';
import type { Thread } from '../api/index';
import type { LogSink } from '../platform/logger';
import { isThreadId } from './protocol';

const UI_FIXTURE_ENV = 'RESEARCH_DESK_UI_FIXTURE';

export async function uiFixture(log: LogSink): Promise<Thread | undefined> {
  const relative = process.env[UI_FIXTURE_ENV];
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!relative || !folder || /(^|[\\/])\.\.([\\/]|$)/.test(relative)) return undefined;
  try {
    const raw = JSON.parse(
      new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder, relative))),
    ) as Thread;
    return isThreadId(raw.thread_id) && Array.isArray(raw.interactions) ? raw : undefined;
  } catch (err) {
    log.warn(`Answer view: UI fixture not shown (${err instanceof Error ? err.message : String(err)}).`);
    return undefined;
  }
}
