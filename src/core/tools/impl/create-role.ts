import type { Role } from '../../data/types.js';
import { knownToolNames, requireAgentControl } from '../agent-control.js';
import type { ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { writeFileBeneath } from '../atomic-write.js';

/** Where roles made with `create_role` are kept, relative to the workspace root (loaded with the roster at start). */
export const CREATED_ROLES_FOLDER = '.tsuka/roles';

/** Same shape as role file ids: lowercase, starts with a letter, 2–32 characters. */
export const ROLE_NAME_PATTERN = /^[a-z][a-z0-9_]{1,31}$/;
const PROMPT_PREVIEW_LINES = 6;

export type CreateRoleInput = { name: string; displayName: string; description: string; systemPrompt: string; allowedTools: string[] };

/** `create_role`: validates a new role and hands it to the agent service, which registers it. */
export const createRoleTool: ToolImplementation<CreateRoleInput> = {
  name: 'create_role',

  preview(input) {
    const promptLines = input.systemPrompt.split('\n');
    return {
      summary: `create_role ${input.name}`,
      details: [
        `role: ${input.name} (${input.displayName})`,
        `description: ${input.description}`,
        `allowed tools: ${input.allowedTools.join(', ') || '(none)'}`,
        'system prompt:',
        ...promptLines.slice(0, PROMPT_PREVIEW_LINES).map((line) => `  ${line}`),
        ...(promptLines.length > PROMPT_PREVIEW_LINES ? [`  … ${promptLines.length - PROMPT_PREVIEW_LINES} more lines`] : []),
      ],
    };
  },

  async execute(input, context) {
    const agent = requireAgentControl(context, 'create_role');
    const problems: string[] = [];
    if (!ROLE_NAME_PATTERN.test(input.name)) problems.push(`name "${input.name}" must match ${ROLE_NAME_PATTERN.source} (lowercase, 2–32 characters)`);
    for (const field of ['displayName', 'description', 'systemPrompt'] as const) {
      if (input[field].trim() === '') problems.push(`${field} is empty`);
    }
    const tools = [...new Set(input.allowedTools.map((name) => name.trim()).filter(Boolean))];
    const known = knownToolNames(context);
    const unknown = known ? tools.filter((name) => !known.includes(name)) : [];
    if (unknown.length > 0) problems.push(`unknown tools in allowedTools: ${unknown.join(', ')} (tools that exist: ${known?.join(', ')})`);
    if (problems.length > 0) throw new ToolFailureError(`The role was not created: ${problems.join('; ')}.`);
    const role: Role = {
      name: input.name,
      displayName: input.displayName.trim(),
      description: input.description.trim(),
      systemPrompt: input.systemPrompt,
      allowedTools: tools,
    };
    const result = agent.addRole(role);
    if (result.ok) {
      // Kept for the workspace (a role file the roster loads at start, with the creator's ceiling) and,
      // where offered, in this process's roster.
      const added = result.role ?? role;
      const file = await context.workspace.resolve(`${CREATED_ROLES_FOLDER}/${role.name}.json`);
      const { name: _name, ...stored } = added;
      await writeFileBeneath(context.workspace, file, `${JSON.stringify(stored, null, 2)}\n`);
      const roster = context.services.createdRoles as { add?: (role: Role) => void } | undefined;
      roster?.add?.(added);
      return { output: `${result.message} It is kept for this workspace (${CREATED_ROLES_FOLDER}/${role.name}.json).`, display: `role ${role.name}` };
    }
    return { output: result.message, ...(result.ok ? {} : { isError: true }), display: result.ok ? `role ${role.name}` : 'not created' };
  },
};
