/**
 * One member turn in a team run, with the protocol resolved: the tool report, else the text
 * fallback (shown as degraded protocol), else a safe default (also shown).
 */
import type { Character } from '../../data/types.js';
import { parseNextLine, parseStatusLine, parseVoteLine } from '../protocol.js';
import type { MemberTurnOutcome, WorkflowIo } from '../workflow-io.js';
import { WorkflowTurnError } from '../workflow-turn-error.js';
import type { RouteDecision, StatusReport, VoteCast } from '../workflow-services.js';

export const STATUS_ICONS = { COMPLETED: '✅ completed', CONTINUE: '↻ continue', FAILED: '✖ failed' } as const;

export interface TeamTurn {
  outcome: MemberTurnOutcome;
  status: StatusReport;
  route?: RouteDecision;
  vote?: VoteCast;
  /** Degraded-protocol notes shown under the turn. */
  degraded: string[];
}

export interface TeamTurnRequest {
  character: Character;
  prompt: string;
  expect?: 'route' | 'vote';
  loadedTools?: string[];
}

function summaryOf(text: string): string {
  const plain = text.replace(/\s+/g, ' ').trim();
  return plain.length > 200 ? `${plain.slice(0, 200)}…` : plain;
}

function resolveStatus(outcome: MemberTurnOutcome, degraded: string[]): StatusReport {
  if (outcome.status) return outcome.status;
  if (outcome.finishReason === 'error' || outcome.finishReason === 'aborted') {
    return { status: 'FAILED', summary: outcome.error?.message ?? (outcome.finishReason === 'aborted' ? 'stopped' : 'the turn failed') };
  }
  const parsed = parseStatusLine(outcome.text);
  if (parsed) {
    degraded.push('status read from a STATUS: line, not report_status');
    return { status: parsed.status, summary: parsed.summary || summaryOf(outcome.text) };
  }
  degraded.push('no status reported — assumed CONTINUE');
  return { status: 'CONTINUE', summary: summaryOf(outcome.text) };
}

export async function runTeamTurn(io: WorkflowIo, request: TeamTurnRequest): Promise<TeamTurn> {
  let resolved: Omit<TeamTurn, 'outcome'> | undefined;
  const resolve = (outcome: MemberTurnOutcome): Omit<TeamTurn, 'outcome'> => {
    const degraded: string[] = [];
    let route = outcome.route;
    let vote = outcome.vote;
    if (request.expect === 'route' && !route) {
      route = parseNextLine(outcome.text);
      if (route) degraded.push('next speaker read from a NEXT: line, not route_next');
    }
    if (request.expect === 'vote' && !vote) {
      vote = parseVoteLine(outcome.text);
      if (vote) degraded.push('vote read from a VOTE: line, not cast_vote');
    }
    // Orchestrator and discussion turns answer with a route or a vote; a status is not expected of them.
    const status = outcome.status
      ? outcome.status
      : request.expect === 'route' && route
        ? { status: 'CONTINUE' as const, summary: `next: ${route.agent}` }
        : request.expect === 'vote' && outcome.finishReason === 'stop'
          ? { status: 'CONTINUE' as const, summary: vote?.reason || summaryOf(outcome.text) }
          : resolveStatus(outcome, degraded);
    return { status, degraded, ...(route ? { route } : {}), ...(vote ? { vote } : {}) };
  };
  const outcome = await io.runMember({
    character: request.character,
    prompt: request.prompt,
    allowTools: true,
    ...(request.loadedTools ? { loadedTools: request.loadedTools } : {}),
    trailer: (raw) => {
      resolved = resolve(raw);
      const lines = [`${STATUS_ICONS[resolved.status.status]} — ${resolved.status.summary}`];
      if (resolved.vote) lines.push(`🗳 ${resolved.vote.vote} — ${resolved.vote.reason}`);
      else if (request.expect === 'vote') lines.push('🗳 no vote cast');
      for (const note of resolved.degraded) lines.push(`⚠️ degraded protocol: ${note}`);
      return lines;
    },
  });
  if (outcome.finishReason === 'error')
    throw new WorkflowTurnError(request.character.aiName, outcome.error?.message ?? 'the model failed', { cause: outcome.error });
  return { outcome, ...(resolved ?? resolve(outcome)) };
}

/** The progress digest members read: one line per earlier turn. */
export function digestOf(turns: readonly TeamTurn[]): string {
  if (turns.length === 0) return '(nothing yet — you are first)';
  return turns.map((turn) => `- [${turn.outcome.character.aiName}] ${turn.status.status}: ${turn.status.summary}`).join('\n');
}

/**
 * How much of a member prompt the others' last contributions may take (≈ 3,000 tokens): enough for
 * several full answers, small enough to leave a local model's context for the member's own work.
 */
export const CONTRIBUTIONS_BUDGET_CHARS = 12_000;

/**
 * The other members' last contributions in full, newest first into the budget (an older one that
 * does not fit is cut, and says so), shown in the order they were made.
 */
export function lastContributions(turns: readonly TeamTurn[], self: Character, budgetChars = CONTRIBUTIONS_BUDGET_CHARS): string | undefined {
  const latest = new Map<string, TeamTurn>();
  for (const turn of turns) if (turn.outcome.character.name !== self.name && turn.outcome.text.trim() !== '') latest.set(turn.outcome.character.name, turn);
  const newestFirst = [...latest.values()].sort((a, b) => turns.indexOf(b) - turns.indexOf(a));
  let left = budgetChars;
  const blocks: { index: number; text: string }[] = [];
  for (const turn of newestFirst) {
    if (left <= 0) break;
    const text = turn.outcome.text.trim();
    const shown = text.length <= left ? text : `${text.slice(0, left)}\n… (cut to fit the prompt budget)`;
    left -= shown.length;
    blocks.push({ index: turns.indexOf(turn), text: `### ${turn.outcome.character.aiName} (last turn)\n${shown}` });
  }
  if (blocks.length === 0) return undefined;
  return blocks
    .sort((a, b) => a.index - b.index)
    .map((block) => block.text)
    .join('\n\n');
}

export function memberPrompt(options: {
  teamName: string;
  task: string;
  turns: readonly TeamTurn[];
  character: Character;
  extra?: string;
  contributionsBudgetChars?: number;
}): string {
  const contributions = lastContributions(options.turns, options.character, options.contributionsBudgetChars);
  return [
    `Team run "${options.teamName}". The task: ${options.task}`,
    '',
    'Progress so far:',
    digestOf(options.turns),
    '',
    ...(contributions ? ["The other members' last contributions:", '', contributions, ''] : []),
    ...(options.extra ? [options.extra, ''] : []),
    `Your turn, ${options.character.aiName}. Do your part with your tools, then call report_status (COMPLETED, CONTINUE or FAILED, with a summary). If you cannot call it, end with a line "STATUS: COMPLETED — summary".`,
  ].join('\n');
}
