import type { ToolImplementation } from '../tool.js';
import { factOrFailure, memoryServicesOf } from './memory-tool-services.js';

export type ForgetMemoryInput = { id: string };

/** `forget_memory`: deletes a saved fact that is wrong or no longer true (its author's or an admin's run only). */
export const forgetMemoryTool: ToolImplementation<ForgetMemoryInput> = {
  name: 'forget_memory',

  preview: (input) => ({ summary: `forget_memory ${input.id}` }),

  async execute(input, context) {
    const fact = factOrFailure(await memoryServicesOf(context).forget(input.id), input.id);
    return { output: `Forgot ${fact.id} ("${fact.summary}").`, display: `forgot ${fact.id}` };
  },
};
