/**
 * What `create_tool` and `create_role` find in their tool context: the created-tools catalogue
 * (register a tool at once) and the process's roster (a new role is known to later runs too).
 */
import type { Role } from '../../core/data/types.js';
import type { CommandDependencies } from '../command-dependencies.js';

export function extensionServices(deps: Pick<CommandDependencies, 'createdTools' | 'roster'>): Record<string, unknown> {
  return {
    ...(deps.createdTools ? { createdTools: deps.createdTools } : {}),
    createdRoles: { add: (role: Role) => void deps.roster.roles.set(role.name, role) },
  };
}
