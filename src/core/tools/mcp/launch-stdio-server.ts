/**
 * The one place a stdio MCP server process is started. Kept to a single function of
 * (command, args, env, cwd) so that it can be routed through the command sandbox
 * (`src/core/safety/command-sandbox.ts`) without touching the rest of the MCP client.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface StdioServerLaunch {
  command: string;
  args: string[];
  /** The complete environment: the scrubbed child environment plus the entry's `env`. */
  env: Record<string, string>;
  cwd: string;
}

/** A started-on-`start()` transport plus its stderr (for the reason a server failed). */
export interface LaunchedStdioServer {
  transport: Transport;
  stderr: NodeJS.ReadableStream | null;
}

export type LaunchStdioServer = (launch: StdioServerLaunch) => LaunchedStdioServer;

export function launchStdioServer(launch: StdioServerLaunch): LaunchedStdioServer {
  const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: launch.env, cwd: launch.cwd, stderr: 'pipe' });
  return { transport, stderr: transport.stderr as NodeJS.ReadableStream | null };
}
