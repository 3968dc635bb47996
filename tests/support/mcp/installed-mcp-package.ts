/**
 * A stdio MCP server installed the way `npm install` leaves one (issue 35): `<folder>/package.json`
 * naming it, `<folder>/node_modules/demo-installed-mcp/{package.json,dist/index.js}`, its `.bin`
 * link, and the SDK with the packages it loads at run time copied (not linked: Node follows a link
 * to its real path, which a sandbox would not show) beside it, hoisted as npm does.
 */
import { chmod, cp, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const INSTALLED_MCP_PACKAGE = 'demo-installed-mcp';

/** What the SDK's stdio server loads, found by starting it in an empty folder until it ran. */
const RUNTIME_PACKAGES = [
  '@modelcontextprotocol/sdk',
  'zod',
  'zod-to-json-schema',
  'ajv',
  'ajv-formats',
  'fast-deep-equal',
  'fast-uri',
  'json-schema-traverse',
  'require-from-string',
];

const CHECKOUT_MODULES = fileURLToPath(new URL('../../../node_modules/', import.meta.url));
const ENTRY_SOURCE = fileURLToPath(new URL('./installed-mcp-server.mjs', import.meta.url));

/** Installs the demo package into `folder`; returns its entry point's path. */
export async function installMcpPackage(folder: string): Promise<string> {
  const modules = path.join(folder, 'node_modules');
  const own = path.join(modules, INSTALLED_MCP_PACKAGE);
  await mkdir(path.join(own, 'dist'), { recursive: true });
  await mkdir(path.join(modules, '.bin'), { recursive: true });
  const entry = path.join(own, 'dist', 'index.js');
  await cp(ENTRY_SOURCE, entry);
  await chmod(entry, 0o755);
  const manifest = { name: INSTALLED_MCP_PACKAGE, version: '1.0.0', type: 'module', bin: { [INSTALLED_MCP_PACKAGE]: 'dist/index.js' } };
  await writeFile(path.join(own, 'package.json'), JSON.stringify(manifest));
  await symlink(`../${INSTALLED_MCP_PACKAGE}/dist/index.js`, path.join(modules, '.bin', INSTALLED_MCP_PACKAGE));
  for (const name of RUNTIME_PACKAGES) {
    await cp(path.join(CHECKOUT_MODULES, name), path.join(modules, name), { recursive: true, dereference: true });
  }
  const project = { name: 'mcp-servers', private: true, dependencies: { [INSTALLED_MCP_PACKAGE]: '1.0.0' } };
  await writeFile(path.join(folder, 'package.json'), JSON.stringify(project));
  return entry;
}
