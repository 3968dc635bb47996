import type { ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { memoryServicesOf } from './memory-tool-services.js';

export type ForgetMemoryInput = { id: string };

/** `forget_memory`: deletes a saved fact that is wrong or no longer true. */
export const forgetMemoryTool: ToolImplementation<ForgetMemoryInput> = {
  name: 'forget_memory',

  preview: (input) => ({ summary: `forget_memory ${input.id}` }),

  async execute(input, context) {
    const { memory } = memoryServicesOf(context);
    const fact = await memory.forget(input.id);
    if (!fact) throw new ToolFailureError(`No memory has the id ${input.id}; use recall_memory to find ids.`);
    return { output: `Forgot ${fact.id} ("${fact.summary}").`, display: `forgot ${fact.id}` };
  },
};
