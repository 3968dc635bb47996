/**
 * The folder a Node script needs to see to load its imports (issue 35): Node resolves a bare
 * import by walking up from the script to each `node_modules`, and reads the nearest
 * `package.json` for `"type": "module"`. So a script inside a `node_modules` tree (a server
 * installed with npm and started as `node <folder>/node_modules/<pkg>/dist/index.js`, or a
 * `.bin` link's target) needs that whole tree — its dependencies are hoisted beside it — and a
 * script of a package checked out on its own needs the package's folder (its `package.json`, its
 * `node_modules`, the files beside `dist/`). Only for scripts Node runs; never `/`, a top-level
 * folder or a home (a stray `~/package.json` is no package of the server).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

const NODE_SCRIPT = /\.(?:js|mjs|cjs)$/;

/** True for folders that are never a server's package: `/`, `/srv`, `/home/alice`, `/root`. */
function tooWide(folder: string): boolean {
  const parent = path.dirname(folder);
  return folder === '/' || parent === '/' || parent === '/home';
}

/** The outermost `node_modules` folder on the script's path, if it lies in one. */
function enclosingNodeModules(script: string): string | undefined {
  const parts = script.split(path.sep);
  const index = parts.indexOf('node_modules');
  return index > 0 && index < parts.length - 1 ? parts.slice(0, index + 1).join(path.sep) : undefined;
}

/** The nearest folder above the script holding a `package.json`. */
function packageRoot(script: string): string | undefined {
  for (let folder = path.dirname(script); ; folder = path.dirname(folder)) {
    if (existsSync(path.join(folder, 'package.json'))) return folder;
    if (folder === path.dirname(folder)) return undefined;
  }
}

/**
 * The folder to show for `script` (a resolved absolute path), or undefined when nothing beyond its
 * own folder is needed. `asProgram`: the entry's command (only a `node_modules` tree counts then:
 * nvm's node binary sits in a folder with no package of its own).
 */
export function nodePackageFolder(script: string, asProgram: boolean): string | undefined {
  const modules = enclosingNodeModules(script);
  if (modules) return modules;
  if (asProgram || !NODE_SCRIPT.test(script)) return undefined;
  const root = packageRoot(script);
  return root === undefined || tooWide(root) ? undefined : root;
}
