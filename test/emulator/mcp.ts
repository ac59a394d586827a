// The MCP protocol at /mcp (Streamable HTTP, stateless) with the MCP TypeScript SDK. The emulator's server does the
// HTTP and the business (authentication, limits, the pool, ranking); this file speaks JSON-RPC. Loaded on the first
// /mcp request only, so the REST emulator, the benchmark and the demo never load the SDK.
import type * as http from 'node:http';
// The low-level Server on purpose: McpServer would validate arguments with a zod schema and answer in zod's words;
// the tool's schema here is the spec's, written out, and every argument error names its field in plain words.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_SEARCH_TOOL } from './mcpTool';

export const MCP_SERVER_INFO = { name: 'research-service-emulator', version: '1.0.0' };

export interface McpCaller {
  /** Runs the `search` tool for this request's caller, with the arguments as sent and the JSON-RPC id of the call. */
  search(args: unknown, id: string | number): CallToolResult;
}

/**
 * Answers one POST to /mcp whose JSON body is already read and parsed. Stateless: a server and a transport per
 * request, no session id, so any request may arrive on any connection and nothing outlives it.
 */
export async function serveMcp(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: unknown,
  caller: McpCaller,
): Promise<void> {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [MCP_SEARCH_TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, (r, extra) => {
    if (r.params.name !== MCP_SEARCH_TOOL.name)
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${r.params.name.slice(0, 60)}`);
    return caller.search(r.params.arguments, extra.requestId);
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
