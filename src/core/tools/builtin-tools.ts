import type { HostLookup } from './web-risk.js';
import type { ToolImplementation } from './tool.js';
import { auditCodeTool } from './impl/audit-code.js';
import { createBrowseUrlTool } from './impl/browse-url.js';
import { createRoleTool } from './impl/create-role.js';
import { createToolTool } from './impl/create-tool.js';
import { deleteFileTool } from './impl/delete-file.js';
import { createDownloadFileTool } from './impl/download-file.js';
import { editFileTool } from './impl/edit-file.js';
import { executeCommandTool } from './impl/execute-command.js';
import { getPsInfoTool } from './impl/get-ps-info.js';
import { grepSearchTool } from './impl/grep-search.js';
import { listDirTool } from './impl/list-dir.js';
import { loadToolsTool } from './impl/load-tools.js';
import { readFileTool } from './impl/read-file.js';
import { switchSkillTool } from './impl/switch-skill.js';
import { createWebSearchTool } from './impl/web-search.js';
import { writeFileTool } from './impl/write-file.js';

export interface BuiltinToolOptions {
  /** `create_tool` is off unless the operator turns it on. */
  enableCreateTool: boolean;
  /** The fetch the web tools use (tests pass one; default: the global). */
  fetch?: typeof fetch;
  /** How the web tools resolve host names for the private-address guard (default: the system resolver). */
  hostLookup?: HostLookup;
  /** A SearXNG base URL for `web_search`; without it DuckDuckGo's HTML page is used. */
  searchUrl?: string;
}

/**
 * The engine's own tools (files, system, web, security, extension). Memory and coordination
 * tools come from their own modules and are appended by the composition root.
 */
export function builtinToolImplementations(options: BuiltinToolOptions): ToolImplementation[] {
  const web = { ...(options.fetch ? { fetch: options.fetch } : {}), ...(options.hostLookup ? { lookup: options.hostLookup } : {}) };
  const tools: ToolImplementation[] = [
    readFileTool,
    writeFileTool,
    editFileTool,
    deleteFileTool,
    listDirTool,
    grepSearchTool,
    executeCommandTool,
    getPsInfoTool,
    createWebSearchTool({ ...web, ...(options.searchUrl ? { searchUrl: options.searchUrl } : {}) }),
    createBrowseUrlTool(web),
    createDownloadFileTool(web),
    auditCodeTool,
    loadToolsTool,
    switchSkillTool,
    createRoleTool,
    ...(options.enableCreateTool ? [createToolTool] : []),
  ];
  return tools;
}

/** Tool names whose schemas must be left out of the registry under these options. */
export function disabledBuiltinToolNames(options: Pick<BuiltinToolOptions, 'enableCreateTool'>): string[] {
  return options.enableCreateTool ? [] : ['create_tool'];
}
