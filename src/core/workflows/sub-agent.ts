/**
 * `spawn_agent`'s engine: an isolated sub-agent (no history, its own task) run to completion by the
 * same agent runner and permission gate as its parent, one level deeper; its report is stored
 * with the run by `onReport`. A sub-agent never has more tools than its spawner: every role it can
 * act in is cut down to the spawner's tools (`toolCeiling`), however broad the role it asked for.
 */
import type { AgentEvent } from '../agent/agent-events.js';
import type { AgentRunner, TurnInput } from '../agent/agent-runner.js';
import type { Character, Role, Roster } from '../data/types.js';
import type { ReasoningEffort } from '../model/language-model.js';
import { findCharacter } from '../data/character-lookup.js';
import { TsukaError } from '../errors.js';
import { MAX_SPAWN_DEPTH, workflowServiceOf, type SubAgentSpawner, type WorkflowToolService } from './workflow-services.js';

export interface SubAgentSpawnerOptions {
  runner: AgentRunner;
  roster: Roster;
  runId: string;
  requesterId?: string;
  memoryScope: string;
  toolContext: TurnInput['toolContext'];
  /** The workflow service the sub-agent's tools see, at its depth. */
  serviceFor(depth: number, agent: Character): WorkflowToolService;
  onEvent?(agent: string, event: AgentEvent): void;
  onReport(agent: string, report: string): Promise<void>;
  /** The run's `/tsuka effort` pin, which reaches sub-agents too. */
  effortPin?: ReasoningEffort;
}

function subAgentCharacter(roster: Roster, parentName: string, request: { roleName?: string; charName?: string }): Character {
  const base = request.charName ? findCharacter(roster, request.charName) : findCharacter(roster, parentName);
  if (!base) throw new TsukaError('spawn_invalid', `No character "${request.charName ?? parentName}" in the roster.`);
  if (!request.roleName) return base;
  if (!roster.roles.has(request.roleName)) {
    throw new TsukaError('spawn_invalid', `No role "${request.roleName}". Roles: ${[...roster.roles.keys()].join(', ')}.`);
  }
  return { ...base, activeRole: request.roleName, roles: [...new Set([...base.roles, request.roleName])] };
}

// The spawner's own tools: inherited from its spawner when it is a sub-agent, else its active role's.
function ceilingOf(roster: Roster, context: Parameters<SubAgentSpawner>[1]): readonly string[] {
  const inherited = workflowServiceOf(context)?.toolCeiling;
  if (inherited) return inherited;
  const parent = findCharacter(roster, context.agentName);
  const role = parent ? roster.roles.get(parent.activeRole) : undefined;
  if (!role) throw new TsukaError('spawn_invalid', `Cannot tell which tools ${context.agentName} may hand to a sub-agent.`);
  return role.allowedTools;
}

function capRole(role: Role, ceiling: ReadonlySet<string>): Role {
  return {
    ...role,
    allowedTools: role.allowedTools.filter((name) => ceiling.has(name)),
    ...(role.coreTools ? { coreTools: role.coreTools.filter((name) => ceiling.has(name)) } : {}),
  };
}

/** The roster as the sub-agent sees it: every role capped, so `switch_skill` cannot widen its tools either. */
function cappedRoster(roster: Roster, ceiling: ReadonlySet<string>): Roster {
  return { ...roster, roles: new Map([...roster.roles].map(([name, role]) => [name, capRole(role, ceiling)])) };
}

export function createSubAgentSpawner(options: SubAgentSpawnerOptions): SubAgentSpawner {
  return async (request, context) => {
    const depth = (workflowServiceOf(context)?.depth ?? 0) + 1;
    if (depth > MAX_SPAWN_DEPTH) throw new TsukaError('spawn_depth', `Sub-agents nest at most ${MAX_SPAWN_DEPTH} deep.`);
    const character = subAgentCharacter(options.roster, context.agentName, request);
    const ceiling = new Set(ceilingOf(options.roster, context));
    const roster = cappedRoster(options.roster, ceiling);
    const toolCeiling = roster.roles.get(character.activeRole)?.allowedTools ?? [];
    const label = `${character.name} (sub-agent of ${context.agentName}, depth ${depth})`;
    const result = await options.runner.runTurn({
      character,
      roster,
      history: [],
      userMessage: `Sub-task from ${context.agentName}: ${request.task}\n\nWork on it alone, then end with a concise report of what you did and found.`,
      runId: options.runId,
      ...(options.requesterId ? { requesterId: options.requesterId } : {}),
      toolContext: {
        ...options.toolContext,
        services: { ...options.toolContext.services, workflow: { ...options.serviceFor(depth, character), toolCeiling } },
      },
      memoryScope: options.memoryScope,
      ...(options.effortPin ? { effort: { pin: options.effortPin } } : {}),
      signal: context.signal,
      onEvent: (event) => options.onEvent?.(label, event),
    });
    const report =
      result.finishReason === 'error'
        ? `The sub-agent failed: ${result.error?.message ?? 'unknown error'}`
        : result.text.trim() || '(the sub-agent gave no report)';
    await options.onReport(label, report);
    return report;
  };
}
