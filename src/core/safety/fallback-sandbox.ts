/**
 * The declared fallback where namespaces are unavailable (or `TSUKA_SANDBOX=none`): `/bin/sh -c`
 * on the host, with the scrubbed environment, as another Unix user when one is configured. What
 * it does not give is said in `summary` and in the README's security section: without another
 * user, a command can read whatever the bot's user can, including `/proc/<bot pid>/environ`.
 */
import type { CommandSandbox, SandboxLaunch, SandboxRequest } from './command-sandbox.js';

export interface SandboxUser {
  name: string;
  uid: number;
  gid: number;
}

export interface FallbackSandboxOptions {
  /** Run commands as this user (the bot must be allowed to switch to it, i.e. run as root). */
  user?: SandboxUser;
  /** Why there is no bubblewrap, for the summary. */
  reason?: string;
}

export function createFallbackSandbox(options: FallbackSandboxOptions = {}): CommandSandbox {
  const { user } = options;
  const why = options.reason ? ` (${options.reason})` : '';
  return {
    isolation: user ? 'separate-user' : 'environment-only',
    summary: user
      ? `isolation: separate user — no namespaces${why}; commands run as ${user.name} (uid ${user.uid}) with secrets removed from their environment`
      : `isolation: environment only — no sandbox${why}; commands run as the bot's own user with secrets removed from their environment`,
    launch(request: SandboxRequest): SandboxLaunch {
      return {
        file: '/bin/sh',
        args: ['-c', request.command],
        cwd: request.cwd,
        env: request.env,
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      };
    },
  };
}
