/**
 * What a stdio MCP server needs to see under the sandbox (issue 26): the files its entry names —
 * its command when that is a path (or a program found on PATH outside the system folders, such
 * as nvm's node), the arguments that are existing paths, its `cwd` — read-only, and a persistent
 * home of its own under the data folder, read-write (so `npx -y` / `uvx` caches survive restarts).
 * A named file is shown with its folder (a server's package sits beside its entry point) — a Node
 * script with its package or the node_modules tree it lies in (`node-package-folder.ts`) — unless
 * that folder is, or holds, a hidden folder (the bot's home, its checkout): then the file alone.
 * Nothing inside the data folder is ever shown; such a path becomes a note the failure message
 * carries ("… is inside the data folder, which the sandbox hides").
 */
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SandboxBind } from '../../safety/command-sandbox.js';
import { SANDBOX_HOME, SANDBOX_SYSTEM_PATHS } from '../../safety/bubblewrap-sandbox.js';
import { nodePackageFolder } from './node-package-folder.js';

export interface McpServerFilesOptions {
  /** Never shown (the sandbox's hidden paths): the data folder, the checkout, the `.env` folder, the bot's home. */
  hiddenPaths: string[];
  /** Never shown, not even a file inside: the data folder. */
  forbiddenPaths: string[];
  /** Where each server's persistent home is made (`<data>/mcp-home`); none when omitted. */
  homesFolder?: string;
}

export interface McpServerFiles {
  binds: SandboxBind[];
  /** Paths the entry names that stay hidden, said in words for the failure message. */
  notes: string[];
}

const within = (outer: string, inner: string): boolean => inner === outer || inner.startsWith(outer === '/' ? '/' : `${outer}/`);

function realPath(candidate: string): string | undefined {
  try {
    return realpathSync(candidate);
  } catch {
    return undefined;
  }
}

/** A bare program name as the spawn would find it on PATH. */
function onPath(program: string, pathVariable: string | undefined): string | undefined {
  for (const folder of (pathVariable ?? '').split(':').filter(Boolean)) {
    const candidate = path.join(folder, program);
    if (existsSync(candidate)) return realPath(candidate);
  }
  return undefined;
}

export function mcpServerFiles(
  launch: { name?: string; command: string; args: string[]; cwd: string; env: Record<string, string> },
  options: McpServerFilesOptions,
): McpServerFiles {
  const hidden = options.hiddenPaths.map((hiddenPath) => path.resolve(hiddenPath));
  const forbidden = options.forbiddenPaths.map((forbiddenPath) => path.resolve(forbiddenPath));
  const visible = (target: string) => SANDBOX_SYSTEM_PATHS.some((system) => within(system, target)) || within(launch.cwd, target);
  const shown = new Set<string>();
  const notes: string[] = [];

  const show = (named: string, resolved: string, asProgram: boolean): void => {
    if (forbidden.some((folder) => within(folder, resolved))) {
      notes.push(
        `${named} is inside the data folder (${forbidden.find((folder) => within(folder, resolved))}), which the sandbox hides: move the server out of it`,
      );
      return;
    }
    if (visible(resolved)) return;
    const isFile = statSync(resolved).isFile();
    // A program in …/bin: its whole installation (nvm's node needs its lib/ beside bin/).
    let folder = isFile ? path.dirname(resolved) : resolved;
    if (isFile && asProgram && path.basename(folder) === 'bin') folder = path.dirname(folder);
    const holdsHidden = (candidate: string) => hidden.some((hiddenPath) => within(candidate, hiddenPath));
    // A script's package and the node_modules it imports from (issue 35), unless that would show a
    // hidden path or lay a read-only copy over the working folder.
    const packageFolder = isFile ? nodePackageFolder(resolved, asProgram) : undefined;
    if (packageFolder && !holdsHidden(packageFolder) && !within(packageFolder, launch.cwd)) folder = packageFolder;
    const target = folder === '/' || holdsHidden(folder) ? (isFile ? resolved : undefined) : folder;
    if (target === undefined) {
      notes.push(`${named} is a folder the sandbox hides (it is or holds the bot's home, checkout or data): name the server's own folder instead`);
      return;
    }
    shown.add(target);
  };

  const program = launch.command.includes('/') ? realPath(path.resolve(launch.cwd, launch.command)) : onPath(launch.command, launch.env.PATH);
  if (program) show(launch.command, program, true);
  for (const arg of launch.args) {
    if (!arg.includes('/') && !arg.startsWith('.')) continue;
    const resolved = realPath(path.resolve(launch.cwd, arg));
    if (resolved) show(arg, resolved, false);
  }
  // Folders inside another shown folder need no bind of their own.
  const binds: SandboxBind[] = [...shown]
    .filter((target) => ![...shown].some((other) => other !== target && within(other, target)))
    .sort()
    .map((source) => ({ source }));
  if (options.homesFolder && launch.name) {
    const home = path.join(options.homesFolder, launch.name);
    mkdirSync(home, { recursive: true, mode: 0o700 });
    binds.push({ source: home, target: SANDBOX_HOME, writable: true });
  }
  return { binds, notes };
}
