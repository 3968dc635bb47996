/**
 * The host pid of a `sleep <argument>` started by an agent command. Inside the bubblewrap sandbox
 * `$$` and `$!` are pids of the sandbox's own PID namespace, meaningless on the host, so tests that
 * check a process was killed find it by its unique command line instead.
 */
import { readdirSync, readFileSync } from 'node:fs';

export function hostPidOfSleep(argument: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let commandLine: string;
    try {
      commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    if (commandLine === `sleep\0${argument}\0`) return Number(entry);
  }
  return undefined;
}
