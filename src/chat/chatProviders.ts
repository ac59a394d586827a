/**
 * The entry bundle's side of the chat: each tool of `Tools` and the `@research` participant registered at activation
 * (VS Code activates the extension for a tool's first use or the participant's first request), with adapters that
 * load the core only when a tool is about to run or a request arrives. The work is the core's (researchTools.ts,
 * participant.ts).
 */
import * as vscode from 'vscode';
import { ChatParticipants, Tools, type ToolName } from '../platform/ids';

/** What the core does for a tool. */
export interface ToolRunner {
  prepareTool(name: ToolName, input: unknown): vscode.PreparedToolInvocation;
  invokeTool(name: ToolName, input: unknown, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult>;
}

/** What the core does for the chat participant. */
export interface ChatRunner {
  handleChat(
    request: vscode.ChatRequest,
    context: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<vscode.ChatResult>;
  chatFollowups(result: vscode.ChatResult): vscode.ChatFollowup[];
}

/** What the adapters need of the core loader. */
export interface ChatCoreAccess {
  get(): ToolRunner & ChatRunner;
}

export function registerResearchTools(core: ChatCoreAccess): vscode.Disposable {
  const registrations = Object.values(Tools).map((name) =>
    vscode.lm.registerTool<unknown>(name, {
      prepareInvocation: (options) => core.get().prepareTool(name, options.input),
      invoke: (options, token) => core.get().invokeTool(name, options.input, token),
    }),
  );
  return vscode.Disposable.from(...registrations);
}

export function registerResearchParticipant(core: ChatCoreAccess, extensionUri: vscode.Uri): vscode.Disposable {
  const participant = vscode.chat.createChatParticipant(ChatParticipants.research, (request, context, stream, token) =>
    core.get().handleChat(request, context, stream, token),
  );
  participant.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'research-desk.svg');
  participant.followupProvider = { provideFollowups: (result) => core.get().chatFollowups(result) };
  return participant;
}
