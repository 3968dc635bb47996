import type { ToolImplementation } from '../tool.js';
import { forgetMemoryTool } from './forget-memory.js';
import { recallMemoryTool } from './recall-memory.js';
import { saveMemoryTool } from './save-memory.js';
import { updateMemoryTool } from './update-memory.js';

/** The four memory tools, for the registry. They need `services.memory` and `services.memoryAccess`. */
export function memoryToolImplementations(): ToolImplementation[] {
  return [saveMemoryTool, recallMemoryTool, updateMemoryTool, forgetMemoryTool];
}
