/**
 * The entry bundle's side of the language model tools: each tool of `Tools` registered at activation (VS Code
 * activates the extension for a tool's first use) with an adapter that loads the core only when a tool is about to
 * run. The tools themselves are the core's (researchTools.ts).
 */
import * as vscode from 'vscode';
import { Tools, type ToolName } from '../platform/ids';

/** What the core does for a tool. */
export interface ToolRunner {
  prepareTool(name: ToolName, input: unknown): vscode.PreparedToolInvocation;
  invokeTool(name: ToolName, input: unknown, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult>;
}

/** What the adapter needs of the core loader. */
export interface ToolCoreAccess {
  get(): ToolRunner;
}

export function registerResearchTools(core: ToolCoreAccess): vscode.Disposable {
  const registrations = Object.values(Tools).map((name) =>
    vscode.lm.registerTool<unknown>(name, {
      prepareInvocation: (options) => core.get().prepareTool(name, options.input),
      invoke: (options, token) => core.get().invokeTool(name, options.input, token),
    }),
  );
  return vscode.Disposable.from(...registrations);
}
