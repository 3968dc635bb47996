import type { Character, Role, Roster } from '../data/types.js';
import type { AgentControlService, ModelTier, ToolRegistry } from '../tools/tool.js';
import { roleToolNames } from './offered-tools.js';

/** The part of a turn that tools may change: the active role and the loaded tools. */
export interface AgentSessionState {
  character: Character;
  roster: Roster;
  /** Roles added with `create_role` in this runner's lifetime. */
  extraRoles: Map<string, Role>;
  activeRole: string;
  loadedTools: Set<string>;
  tools: ToolRegistry;
  tier: ModelTier;
}

type RoleLookup = Pick<AgentSessionState, 'roster' | 'extraRoles' | 'character'>;

/** A role's own tools: a created role's never exceed its recorded ceiling. */
function ownTools(role: Role): string[] {
  const ceiling = role.ceiling;
  return ceiling ? role.allowedTools.filter((tool) => ceiling.includes(tool)) : role.allowedTools;
}

/**
 * A role by name as this character may use it: the roster's, else one added in this session. A
 * created role (it has a ceiling) that is not one of the character's own roles is cut to the tools the
 * character's own roles allow, so switching to a role someone else made never widens its tools.
 */
export function findRole(state: RoleLookup, name: string): Role | undefined {
  const role = state.roster.roles.get(name) ?? state.extraRoles.get(name);
  if (!role?.ceiling) return role;
  let allowed = ownTools(role);
  if (!state.character.roles.includes(name)) {
    const reach = new Set(
      state.character.roles.flatMap((own) => {
        const ownRole = state.roster.roles.get(own) ?? state.extraRoles.get(own);
        return ownRole ? ownTools(ownRole) : [];
      }),
    );
    allowed = allowed.filter((tool) => reach.has(tool));
  }
  return { ...role, allowedTools: allowed, ...(role.coreTools ? { coreTools: role.coreTools.filter((tool) => allowed.includes(tool)) } : {}) };
}

function switchableRoles(state: AgentSessionState): string[] {
  return [...new Set([...state.character.roles, ...state.extraRoles.keys()])];
}

function isValidRole(role: Role): boolean {
  return (
    typeof role.name === 'string' &&
    /^[a-z0-9_-]+$/i.test(role.name) &&
    typeof role.systemPrompt === 'string' &&
    Array.isArray(role.allowedTools) &&
    role.allowedTools.every((name) => typeof name === 'string')
  );
}

/** The `context.services.agent` tools use to change the running agent; changes apply from the next model call. */
export function createAgentControl(state: AgentSessionState): AgentControlService {
  return {
    loadTools(names) {
      const role = findRole(state, state.activeRole);
      const loaded: string[] = [];
      const rejected: { name: string; reason: string }[] = [];
      for (const name of names) {
        if (!state.tools.has(name)) rejected.push({ name, reason: 'no such tool' });
        else if (!role || !roleToolNames(role, state.tools).includes(name)) rejected.push({ name, reason: `not allowed for the role ${state.activeRole}` });
        else if (state.tools.definitionsFor([name], state.tier).length === 0) rejected.push({ name, reason: 'needs a larger model' });
        else {
          state.loadedTools.add(name);
          loaded.push(name);
        }
      }
      return { loaded, rejected };
    },
    switchRole(roleName) {
      const candidates = switchableRoles(state);
      if (!candidates.includes(roleName) || findRole(state, roleName) === undefined) {
        return { ok: false, message: `There is no role "${roleName}" for you. Roles you can switch to: ${candidates.join(', ')}.` };
      }
      if (roleName === state.activeRole) return { ok: true, message: `You already act as ${roleName}.` };
      state.activeRole = roleName;
      return { ok: true, message: `Switched to the role ${roleName}; its tools are offered from your next step.` };
    },
    addRole(role) {
      if (!isValidRole(role)) return { ok: false, message: 'The role needs a name (letters, digits, _ or -), a systemPrompt and allowedTools.' };
      if (findRole(state, role.name) !== undefined) return { ok: false, message: `A role named ${role.name} already exists.` };
      // The ceiling: what the creator's current role allows. A made role can never grant more.
      const current = findRole(state, state.activeRole);
      const ceiling = current ? roleToolNames(current, state.tools) : [];
      const beyond = role.allowedTools.filter((tool) => !ceiling.includes(tool));
      if (beyond.length > 0) {
        return {
          ok: false,
          message: `The role ${role.name} was not created: a role you make may only use tools your role ${state.activeRole} allows, and ${beyond.join(', ')} ${beyond.length === 1 ? 'is' : 'are'} not among them.`,
        };
      }
      const added: Role = { ...role, ceiling: [...new Set(ceiling)].sort(), createdBy: state.character.name };
      state.extraRoles.set(role.name, added);
      return { ok: true, message: `Added the role ${role.name}; switch_skill can switch to it in this session.`, role: added };
    },
  };
}
