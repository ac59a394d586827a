import type * as vscode from 'vscode';
import type { ChatRunner, ToolRunner } from '../chat/chatProviders';
import type { CommandId } from '../platform/ids';
import type { KeyStore } from '../service/keyStore';
import type { Logger } from '../platform/logger';
import type { SettingsStore } from '../platform/settings';
import type { ResultsTreeProvider } from '../search/resultsTree';
import type { ThreadsTreeProvider } from '../threads/threadsTree';
import type { CiteCore } from './cite';

/**
 * The contract between the entry bundle (dist/extension.js) and the lazily loaded core
 * bundle (dist/core.js). Types only: the entry bundle must not load any core value.
 * Services are created once by the composition root and handed over here, so the two
 * bundles share instances, not module state.
 */
export interface CoreServices {
  context: vscode.ExtensionContext;
  log: Logger;
  settings: SettingsStore;
  keys: KeyStore;
  /** The Research view's tree (entry bundle); the core's search session fills it. */
  results: ResultsTreeProvider;
  /** The Threads view's tree (entry bundle); the core's ThreadsModel attaches to it. */
  threadsView?: ThreadsTreeProvider;
  /** The monthly-calls status item restored at start (entry bundle), handed over once; undefined when none. */
  takeUsageStatusItem?: () => vscode.StatusBarItem | undefined;
  /** The citation bundle's service (dist/cite.js, loaded on first use): the core's citation commands build on it. */
  cite: () => CiteCore;
}

/** The core, as the entry bundle sees it (cite-key completion, hover and links are dist/cite.js's). */
export interface Core extends vscode.Disposable, ToolRunner, ChatRunner {
  /** Runs a command; errors are caught, logged and shown here (the command boundary). */
  run(command: CommandId, args: readonly unknown[]): Promise<unknown>;
  /** Restores an answer panel after a reload (the entry bundle's WebviewPanelSerializer). */
  restoreAnswerPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void>;
  /** The active search filters in words ('' for none): Search Papers' title when the entry bundle asked the query. */
  describeFilters(): string;
}

export interface CoreModule {
  createCore(services: CoreServices): Core;
}
