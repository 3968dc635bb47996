/**
 * Runs belong to their channel (issue 21; the scoping decision record): `/tsuka runs`, `export`, `trace` and
 * `stop` reach the runs of the channel they are typed in. An admin may name a run of any other
 * channel, and what is shown of it goes to the admin alone. Everyone else gets the same answer for
 * a run of another channel as for a run that does not exist, so an id reveals nothing. The CLI is
 * the host operator's and does not ask.
 */
import type { RunRecord } from '../store/run-types.js';

/** Who asks, from where: the opaque channel id the command was typed in. */
export interface RunViewer {
  channel: string;
  isAdmin: boolean;
}

/**
 * `channel`: the run is this channel's, shown as usual. `admin`: another channel's run named by an
 * admin, shown to the admin alone (ephemeral, a direct message) and audited. `none`: as if it did not exist.
 */
export type RunAccess = 'channel' | 'admin' | 'none';

export function runAccess(run: Pick<RunRecord, 'where'> | undefined, viewer: RunViewer): RunAccess {
  if (!run) return 'none';
  if (run.where.channelId === viewer.channel) return 'channel';
  return viewer.isAdmin ? 'admin' : 'none';
}

/** The runs of one channel, in the order given. */
export function runsOfChannel<T extends Pick<RunRecord, 'where'>>(runs: readonly T[], channel: string): T[] {
  return runs.filter((run) => run.where.channelId === channel);
}

/** The one answer for an unknown run and for another channel's run (the same words, so nothing leaks). */
export const noSuchRunInChannel = (runId: string): string => `No run ${runId} in this channel.`;
