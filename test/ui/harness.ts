/**
 * The UI-flow contract. A flow is a file test/ui/flows/<name>.flow.ts exporting
 * `flow = defineFlow({...})`; scripts/vscode/run-ui.ts discovers and runs every flow in a
 * fresh VS Code window (fresh user-data directory) pointed at a fresh emulator.
 *
 * Inside a flow, each `check(title, fn)` is one test: it passes when fn resolves and fails
 * when it throws. The first failing check ends the flow (later steps depend on earlier
 * ones); a screenshot `<flow>-FAILED.png` is saved. `shot(name)` saves
 * test-results/ui/<flow>-<name>.png.
 */
import type { Page } from '../../scripts/vscode/pw-types';
import type { ScriptedLogLine } from '../fixtures/scripted-model/types';
import type { WorkbenchDriver } from './driver';

export interface FlowEmulator {
  url: string;
  /** DEMO_KEYS of test/emulator: free, pro, teams, enterprise, deep, revoked, pastDue. */
  keys: Record<string, string>;
  control: unknown;
}

export interface FlowContext {
  driver: WorkbenchDriver;
  /** The fresh emulator this window is pointed at (user setting researchDesk.baseUrl). */
  emulator: FlowEmulator;
  /** The folder the window opened. */
  workspace: string;
  /** Our extension's id, e.g. "research-desk.research-desk". */
  extensionId: string;
  check: (title: string, fn: () => Promise<void> | void) => Promise<void>;
  /** Saves test-results/ui/<flow>-<name>.png of the workbench, or of another window of the browser (`page`). */
  shot: (name: string, page?: Page) => Promise<string>;
  /** What the scripted model (test/fixtures/scripted-model, installed in every window) logged so far. */
  scriptedModelLog: () => ScriptedLogLine[];
}

export interface UiFlow {
  name: string;
  /** Trusted workspace (default) or Restricted Mode. */
  trusted?: boolean;
  /**
   * Extra user settings for the window (researchDesk.baseUrl = emulator is always set); a function gets the emulator's
   * URL.
   */
  userSettings?: Record<string, unknown> | ((emulatorUrl: string) => Record<string, unknown>);
  /** Extra environment for the server / extension host. */
  env?: Record<string, string>;
  /** Files to create in the workspace folder (relative path -> content). */
  files?: Record<string, string>;
  /** Time limit for the whole flow; default 3 minutes. */
  timeoutMs?: number;
  run(ctx: FlowContext): Promise<void>;
}

export function defineFlow(flow: UiFlow): UiFlow {
  return flow;
}

/** Thrown by `check` to end a flow after its first failure (already counted). */
export class FlowAborted extends Error {
  override name = 'FlowAborted';
}

export interface FlowResult {
  name: string;
  passed: number;
  failed: number;
  failures: { title: string; error: string }[];
  screenshots: string[];
  seconds: number;
}
