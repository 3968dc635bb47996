/** A small roster, a turn-input builder and a recording permission gate for agent-loop tests. */
import type { Character, Role, Roster, Trait } from '../../../../src/core/data/types.js';
import { silentLogger } from '../../../../src/core/logger.js';
import type { PermissionDecision, PermissionRequest } from '../../../../src/core/safety/permission-port.js';
import type { AgentEvent } from '../../../../src/core/agent/agent-events.js';
import type { TurnInput } from '../../../../src/core/agent/agent-runner.js';
import type { PermissionGate } from '../../../../src/core/agent/permission-gate.js';
import { createFallbackSandbox } from '../../../../src/core/safety/fallback-sandbox.js';

export const developerRole: Role = {
  name: 'developer',
  displayName: 'Developer',
  description: 'Writes code.',
  systemPrompt: 'You write careful, tested code.',
  allowedTools: ['read_file', 'write_file', 'run_tests', 'big_brain', 'switch_skill', 'load_tools'],
  reasoningEffort: 'medium',
};

export const auditorRole: Role = {
  name: 'security_auditor',
  displayName: 'Security auditor',
  description: 'Finds vulnerabilities.',
  systemPrompt: 'You hunt for injection flaws.',
  allowedTools: ['read_file', 'audit_code', 'load_tools'],
  coreTools: ['read_file'],
};

export const professionalTrait: Trait = {
  name: 'professional',
  displayName: 'Professional',
  description: 'Calm and precise.',
  stylePrompt: 'Answer calmly and precisely, without filler.',
};

export const geordi: Character = {
  name: 'geordi',
  aiName: 'Geordi',
  displayName: 'Geordi La Forge',
  description: 'Chief engineer who fixes anything.',
  roles: ['developer', 'security_auditor'],
  activeRole: 'developer',
  trait: 'professional',
  avatar: ':wrench:',
};

export function createRoster(): Roster {
  return {
    roles: new Map([
      [developerRole.name, developerRole],
      [auditorRole.name, auditorRole],
    ]),
    traits: new Map([[professionalTrait.name, professionalTrait]]),
    characters: new Map([[geordi.name, geordi]]),
    teams: new Map(),
  };
}

/** A turn input with sensible defaults; events are collected in `events`. */
export function turnInput(overrides: Partial<TurnInput> = {}): TurnInput & { events: AgentEvent[] } {
  const events: AgentEvent[] = [];
  return {
    character: geordi,
    roster: createRoster(),
    history: [],
    userMessage: 'Why does npm test fail?',
    runId: 'run-1',
    toolContext: {
      workspace: { root: '/workspace', resolve: async (path) => `/workspace/${path}`, relative: (path) => path },
      childEnv: {},
      sandbox: createFallbackSandbox(),
      maskSecrets: (text) => text,
      logger: silentLogger,
    },
    memoryScope: 'workspace:/workspace',
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    ...overrides,
    events,
  };
}

/** A permission gate that answers with `decide` and records every request. */
export function createFakeGate(
  decide: (request: PermissionRequest, signal: AbortSignal) => Promise<PermissionDecision> = async () => ({
    outcome: 'denied',
  }),
): PermissionGate & { requests: PermissionRequest[] } {
  const requests: PermissionRequest[] = [];
  return {
    requests,
    check(request, signal) {
      requests.push(request);
      return decide(request, signal);
    },
  };
}

/** Every tool message has its assistant call before it, and every call has a result. */
export function assertValidHistory(history: readonly import('../../../../src/core/model/language-model.js').ChatMessage[]): void {
  const open = new Set<string>();
  for (const message of history) {
    if (message.role === 'assistant') {
      if (open.size > 0) throw new Error(`tool calls without results: ${[...open].join(', ')}`);
      for (const call of message.toolCalls ?? []) open.add(call.id);
    } else if (message.role === 'tool') {
      if (!open.delete(message.toolCallId)) throw new Error(`tool result ${message.toolCallId} has no call before it`);
    } else if (open.size > 0) {
      throw new Error(`tool calls without results before a ${message.role} message: ${[...open].join(', ')}`);
    }
  }
  if (open.size > 0) throw new Error(`tool calls without results: ${[...open].join(', ')}`);
}
