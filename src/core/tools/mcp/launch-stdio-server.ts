/**
 * The one place a stdio MCP server process is started. Kept to a single function of
 * (command, args, env, cwd) so that it can be routed through the command sandbox
 * (`src/core/safety/command-sandbox.ts`) without touching the rest of the MCP client.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CommandSandbox } from '../../safety/command-sandbox.js';
import { TsukaError } from '../../errors.js';
import path from 'node:path';
import { mcpServerFiles, type McpServerFilesOptions } from './mcp-server-files.js';

/** Under the data folder: one persistent home per sandboxed stdio server (npm/uv caches, its own state). */
export const MCP_HOMES_FOLDER = 'mcp-home';

export interface StdioServerLaunch {
  command: string;
  args: string[];
  /** The complete environment: the scrubbed child environment plus the entry's `env`. */
  env: Record<string, string>;
  cwd: string;
  /** The entry's name (its persistent home under the sandbox is named after it). */
  name?: string;
}

/** A started-on-`start()` transport plus its stderr (for the reason a server failed). */
export interface LaunchedStdioServer {
  transport: Transport;
  stderr: NodeJS.ReadableStream | null;
  /** Paths the entry names that the sandbox keeps hidden: told with the failure when the server does not start. */
  notes?: string[];
}

export type LaunchStdioServer = (launch: StdioServerLaunch & { sandbox?: boolean }) => LaunchedStdioServer;

export function launchStdioServer(launch: StdioServerLaunch): LaunchedStdioServer {
  const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: launch.env, cwd: launch.cwd, stderr: 'pipe' });
  return { transport, stderr: transport.stderr as NodeJS.ReadableStream | null };
}

/** Quotes one word for `/bin/sh -c` (single quotes; an embedded quote closed, escaped, reopened). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Launches stdio servers through the command sandbox, as agent commands are: under bubblewrap a
 * server sees a read-only system, its working folder, the files its entry names (read-only) and
 * its own persistent home (`mcp-server-files.ts`) — not the data folder, the checkout, the bot's
 * home or its processes. Entries with `"sandbox": false` start directly. A sandbox that
 * would switch users cannot be honoured by the MCP SDK's spawn, so such a launch is refused rather
 * than run as the bot.
 */
export function sandboxedStdioLauncher(
  sandbox: CommandSandbox,
  files?: McpServerFilesOptions,
  direct: LaunchStdioServer = launchStdioServer,
): LaunchStdioServer {
  return (launch) => {
    if (launch.sandbox === false) return direct(launch);
    const command = [launch.command, ...launch.args].map(shellWord).join(' ');
    // Under bubblewrap: the server's own files read-only and its persistent home (issue 26).
    const { binds, notes } = files && sandbox.isolation === 'bubblewrap' ? mcpServerFiles(launch, files) : { binds: [], notes: [] };
    const plan = sandbox.launch({ command, root: launch.cwd, cwd: launch.cwd, env: launch.env, network: true, binds });
    if (plan.uid !== undefined)
      throw new TsukaError(
        'mcp_sandbox_user',
        'the sandbox runs commands as another user, which MCP servers cannot use yet: set "sandbox": false on this entry to run it as the bot',
      );
    const env = Object.fromEntries(Object.entries(plan.env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
    return { ...direct({ command: plan.file, args: plan.args, env, cwd: plan.cwd }), notes };
  };
}

/** What every stdio server may and may not see, from the sandbox settings and the data folder. */
export function mcpServerFilesOptions(config: { dataDirectory: string; sandbox: { hiddenPaths: string[] } }): McpServerFilesOptions {
  return { hiddenPaths: config.sandbox.hiddenPaths, forbiddenPaths: [config.dataDirectory], homesFolder: path.join(config.dataDirectory, MCP_HOMES_FOLDER) };
}
