import { requireAgentControl } from '../agent-control.js';
import type { ToolImplementation } from '../tool.js';

export type SwitchSkillInput = { skill: string };

/** `switch_skill`: switches a multi-role character to another of its roles for the rest of the session. */
export const switchSkillTool: ToolImplementation<SwitchSkillInput> = {
  name: 'switch_skill',

  preview: (input) => ({ summary: `switch_skill ${input.skill}` }),

  async execute(input, context) {
    const result = requireAgentControl(context, 'switch_skill').switchRole(input.skill);
    return { output: result.message, ...(result.ok ? {} : { isError: true }), display: result.ok ? input.skill : 'not switched' };
  },
};
