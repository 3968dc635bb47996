import { dirname, join } from 'node:path';

/**
 * Git in the agents' commands is pinned to the workspace's own repository: `GIT_DIR` is
 * `<root>/.git`, so git never walks up into an enclosing repository (the bot's own clone, or the
 * real one above a /goal staging copy) and never takes a bare-repository layout written into the
 * workspace for a repository. Repository config that would run programs is overridden with
 * command-scope settings, which win over `.git/config`: no fsmonitor, no hooks, no pager.
 */
export function gitHardenedEnv(env: NodeJS.ProcessEnv, root: string): NodeJS.ProcessEnv {
  const overrides: [string, string][] = [
    ['core.fsmonitor', 'false'],
    ['core.hooksPath', '/dev/null'],
    ['core.pager', 'cat'],
  ];
  const hardened: NodeJS.ProcessEnv = { ...env, GIT_DIR: join(root, '.git'), GIT_WORK_TREE: root, GIT_CEILING_DIRECTORIES: dirname(root), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_COUNT: String(overrides.length) };
  overrides.forEach(([key, value], index) => {
    hardened[`GIT_CONFIG_KEY_${index}`] = key;
    hardened[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return hardened;
}
