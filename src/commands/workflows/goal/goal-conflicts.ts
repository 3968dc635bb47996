/**
 * Conflicts of parallel /goal branches resolved by a character (issue 28): the goal's supervisor
 * gets the workspace's version and each branch's, proposes the merged file in its own message,
 * and the merge is written through the normal permission path — the approval card shows the diff.
 * Deny (or no usable proposal) keeps today's behaviour: the conflict stays saved for a person.
 * The supervisor's turns count in the goal's stats.
 */
import { AbortedError } from '../../../core/errors.js';
import type { Character, Roster } from '../../../core/data/types.js';
import { extractMergedFile, readConflictVersions, type ConflictVersions } from '../../../core/workflows/goal/conflict-versions.js';
import type { GoalStatsRow } from '../../../core/workflows/goal/goal-stats.js';
import { CONFLICTS_FOLDER, type MergeReport } from '../../../core/workflows/goal/merge-stagings.js';
import type { Staging } from '../../../core/workflows/goal/parallel-workspace.js';
import type { CommandDependencies } from '../../command-dependencies.js';
import { writeWithApproval } from '../approved-write.js';
import { throwIfTurnFailed, turnStats } from './goal-turns.js';
import type { WorkflowSession } from '../workflow-session.js';

export interface GoalConflictContext {
  deps: CommandDependencies;
  session: WorkflowSession;
  objective: string;
  requester: string;
  /** Who proposes merges: the plan's supervisor, else TSUKA itself ({@link tsukaMerger}); none: conflicts stay saved. */
  resolver?: Character;
  /** The goal's extra stats rows (the supervisor's reviews): the merge turns join them. */
  rows: GoalStatsRow[];
}

/** TSUKA as the merger of a goal whose plan names no supervisor (issue 35): the bot's own voice, a neutral role. */
export function tsukaMerger(roster: Pick<Roster, 'roles'>): Character {
  const role = roster.roles.has('assistant') ? 'assistant' : ([...roster.roles.keys()][0] ?? 'assistant');
  return {
    name: 'tsuka',
    aiName: 'TSUKA',
    displayName: 'TSUKA',
    description: 'Merges the changes of parallel steps that touched the same file.',
    roles: [role],
    activeRole: role,
    trait: '',
    avatar: ':twisted_rightwards_arrows:',
  };
}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`{3,}/g)].map((match) => match[0].length));
  return '`'.repeat(longest + 1);
}

function block(title: string, content: string | undefined): string[] {
  if (content === undefined) return [`${title}: (deleted)`];
  const marks = fence(content);
  return [`${title}:`, `${marks}`, content.replace(/\n$/, ''), marks];
}

export function mergePrompt(objective: string, versions: ConflictVersions): string {
  const baseTitle =
    versions.reason === 'branches-differ'
      ? "The workspace's version (the base every branch started from)"
      : "The workspace's version now (it changed after the branch copied it)";
  return [
    `Goal: ${objective}`,
    '',
    `Parallel steps changed ${versions.path} in different ways. Propose ONE merged version that keeps the intent of every change.`,
    '',
    ...block(baseTitle, versions.base),
    ...versions.branches.flatMap((branch) => ['', ...block(`Branch ${branch.label}`, branch.content)]),
    '',
    'Answer with one short sentence on how you merged, then the whole merged file in a single fenced code block (use a longer fence if the file holds ```), and nothing after it. A person approves the write.',
  ].join('\n');
}

/** Proposes and, once approved, writes a merge for each conflict of `report`. */
export async function resolveGoalConflicts(context: GoalConflictContext, report: MergeReport, stagings: readonly Staging[]): Promise<void> {
  const { deps, session, resolver } = context;
  if (!resolver) return;
  for (const conflict of report.conflicts) {
    if (session.abort.signal.aborted) throw new AbortedError();
    const read = await readConflictVersions(deps.workspace.root, conflict, stagings);
    if (!read.ok) {
      await session.io.announce(`🔀 ${conflict.path}: no merge proposed (${read.reason}); the conflict stays saved in ${CONFLICTS_FOLDER}/.`);
      continue;
    }
    session.io.activity(`merge of ${conflict.path} · ${resolver.aiName}`);
    const turn = await session.io.runMember({ character: resolver, allowTools: false, prompt: mergePrompt(context.objective, read.versions) });
    context.rows.push({ agent: resolver.name, ...turnStats(turn) });
    throwIfTurnFailed(turn, resolver.aiName, session.abort.signal);
    const merged = extractMergedFile(turn.text);
    if (merged === undefined) {
      await session.io.announce(`🔀 ${conflict.path}: ${resolver.aiName} proposed no merged file; the conflict stays saved in ${CONFLICTS_FOLDER}/.`);
      continue;
    }
    const written = await writeWithApproval({
      deps,
      permissions: session.permissions,
      runId: session.runId,
      agentName: resolver.name,
      requesterId: context.requester,
      path: conflict.path,
      content: merged,
      signal: session.abort.signal,
    });
    if (session.abort.signal.aborted) throw new AbortedError();
    await session.io.announce(
      written.ok
        ? `🔀 ${conflict.path}: ${resolver.aiName}'s merge written.`
        : `🔀 ${conflict.path}: ${resolver.aiName}'s merge was not written (${written.note}); the conflict stays saved in ${CONFLICTS_FOLDER}/.`,
    );
  }
}
