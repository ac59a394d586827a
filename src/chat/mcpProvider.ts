/**
 * The service's MCP server, offered to VS Code's chat and agent mode (`contributes.mcpServerDefinitionProviders`):
 * one Streamable HTTP server at the user's `researchDesk.mcpUrl`. In the entry bundle, as VS Code asks for it at
 * activation; it needs only the settings and the key store.
 *
 * Authentication: the stored API key goes as a bearer header, added when VS Code is about to start the server
 * (`resolveMcpServerDefinition`), so it is never part of a definition VS Code keeps, and only to the origin the key
 * was saved for. An MCP server elsewhere (the public one has an origin of its own) gets no key: VS Code's own OAuth
 * flow signs the writer in there. In a workspace that is not trusted no server is offered.
 */
import * as vscode from 'vscode';
import type { KeyStore } from '../service/keyStore';
import type { SettingsStore } from '../platform/settings';
import { Disposable } from '../shared/disposable';

/** The definition's label, as VS Code lists the server. */
export const MCP_SERVER_LABEL = 'Research Desk';

export class ResearchMcpServers
  extends Disposable
  implements vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition>
{
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeMcpServerDefinitions = this.changed.event;
  /**
   * The setting's URL when VS Code last asked for the definitions; undefined until it asks (the settings are not read
   * at activation, and VS Code may still hold a definition from an earlier session: any change is then told).
   */
  private offeredUrl: string | undefined;

  constructor(
    private readonly settings: Pick<SettingsStore, 'mcp' | 'onDidChange'>,
    private readonly keys: Pick<KeyStore, 'get' | 'onDidChange'>,
    private readonly log: { warn(message: string): void },
  ) {
    super();
    this.register(
      settings.onDidChange(() => {
        if (this.offeredUrl !== undefined && settings.mcp.url === this.offeredUrl) return;
        this.changed.fire();
      }),
    );
    // A new key may change the server's answers (its plan's page size); the definition itself is unchanged, but
    // VS Code resolves it again only when told.
    this.register(keys.onDidChange(() => this.changed.fire()));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed.fire()));
  }

  provideMcpServerDefinitions(): vscode.McpHttpServerDefinition[] {
    if (!vscode.workspace.isTrusted) return [];
    const mcp = this.settings.mcp;
    this.offeredUrl = mcp.url;
    if (mcp.problem) {
      this.log.warn(mcp.problem);
      return [];
    }
    return [new vscode.McpHttpServerDefinition(MCP_SERVER_LABEL, vscode.Uri.parse(mcp.url, true))];
  }

  async resolveMcpServerDefinition(
    server: vscode.McpHttpServerDefinition,
  ): Promise<vscode.McpHttpServerDefinition | undefined> {
    if (!vscode.workspace.isTrusted) return undefined;
    const mcp = this.settings.mcp;
    // The definition VS Code hands back must still be ours, at the URL the setting names now.
    if (mcp.problem || !mcp.origin || server.uri.toString(true) !== vscode.Uri.parse(mcp.url, true).toString(true))
      return undefined;
    const key = await this.keys.get(mcp.origin);
    if (key) server.headers = { ...server.headers, Authorization: `Bearer ${key}` };
    return server;
  }
}
