import { dirname, join } from 'node:path';
import { configuredDrivers, repositoryConfigKeys } from './git-repository-config.js';
import { declaredSubmoduleNames, submoduleNamesIn } from './git-submodules.js';

/**
 * Settings that make git run a program, pinned for every command in the workspace by
 * command-scope config (`GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`), which wins over `.git/config`
 * and its includes: no fsmonitor, no hooks, no pager, no editor, no credential helper, no
 * askpass, no `ext::` transport, the standard ssh and gpg, and no look into submodules (whose
 * own config is not read here; `gitCommandEnv` adds `submodule.<name>.ignore=all` per name).
 * See docs/decisions for why this and not a refusal.
 */
const STATIC_OVERRIDES: readonly (readonly [string, string])[] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', 'true'],
  ['sequence.editor', 'true'],
  ['core.sshCommand', 'ssh'],
  ['core.askPass', ''],
  // An empty value empties the list of helpers.
  ['credential.helper', ''],
  ['gpg.program', 'gpg'],
  ['gpg.ssh.program', 'ssh-keygen'],
  ['gpg.x509.program', 'gpgsm'],
  ['log.showSignature', 'false'],
  ['protocol.ext.allow', 'never'],
  ['diff.ignoreSubmodules', 'all'],
  ['diff.submodule', 'short'],
  ['status.submoduleSummary', 'false'],
  ['submodule.recurse', 'false'],
];

function withOverrides(env: NodeJS.ProcessEnv, root: string, overrides: readonly (readonly [string, string])[]): NodeJS.ProcessEnv {
  const hardened: NodeJS.ProcessEnv = {
    ...env,
    GIT_DIR: join(root, '.git'),
    GIT_WORK_TREE: root,
    GIT_CEILING_DIRECTORIES: dirname(root),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_COUNT: String(overrides.length),
  };
  delete hardened.GIT_CONFIG_PARAMETERS;
  delete hardened.GIT_EXTERNAL_DIFF;
  overrides.forEach(([key, value], index) => {
    hardened[`GIT_CONFIG_KEY_${index}`] = key;
    hardened[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return hardened;
}

/**
 * Git in the agents' commands is pinned to the workspace's own repository: `GIT_DIR` is
 * `<root>/.git`, so git never walks up into an enclosing repository (the bot's own clone, or the
 * real one above a /goal staging copy) and never takes a bare-repository layout written into the
 * workspace for a repository. The static overrides above apply.
 */
export function gitHardenedEnv(env: NodeJS.ProcessEnv, root: string): NodeJS.ProcessEnv {
  return withOverrides(env, root, STATIC_OVERRIDES);
}

/**
 * Set when the submodule list cannot be read: a key git refuses to parse, so every git command
 * stops at start with this name in its error instead of perhaps looking into a submodule.
 */
const UNREADABLE_SUBMODULES: readonly [string, string] = ['tsuka-gitmodules-unreadable.stop-git.', 'true'];

/** The submodule names `.gitmodules` declares, or undefined when they cannot be read. */
async function declaredSubmodules(root: string, env: NodeJS.ProcessEnv): Promise<string[] | undefined> {
  try {
    return await declaredSubmoduleNames(root, withOverrides({ ...env, GIT_CONFIG_GLOBAL: '/dev/null' }, root, STATIC_OVERRIDES));
  } catch {
    // Git may still read a `.gitmodules` this reading failed on (a race, a timeout): git is stopped instead.
    return undefined;
  }
}

function submoduleOverrides(declared: readonly string[] | undefined, localKeys: readonly string[]): (readonly [string, string])[] {
  if (declared === undefined) return [UNREADABLE_SUBMODULES];
  const names = new Set([...declared, ...submoduleNamesIn(localKeys)]);
  return [...names].map((name): [string, string] => [`submodule.${name}.ignore`, 'all']);
}

/**
 * `gitHardenedEnv` plus what the repository names, switched off by name: every `filter.<name>`
 * gets empty clean/smudge/process commands (git then stores the file as it is) and
 * `required=false`; every `diff.<name>.textconv` becomes `cat`; every submodule gets
 * `ignore=all`, which git reads before `.gitmodules` (its `ignore = none` would otherwise send
 * `git status` into the submodule, whose own config can run filters). The names come from git's
 * own reading of the config and `.gitmodules` just before the command runs. `diff.external` and
 * `diff.<name>.command` cannot be switched off this way: the classifier refuses SAFE for a
 * repository that sets them (see `git-repository-config.ts`).
 */
export async function gitCommandEnv(env: NodeJS.ProcessEnv, root: string): Promise<NodeJS.ProcessEnv> {
  const declared = declaredSubmodules(root, env);
  let keys: string[];
  try {
    keys = await repositoryConfigKeys(root, env.PATH);
  } catch {
    // Git cannot read this config, so no git run will honour it either (git stops on a bad config).
    keys = [];
  }
  const { filters, textconvs } = configuredDrivers(keys);
  const driverOverrides: [string, string][] = [
    ...filters.flatMap((name): [string, string][] => [
      [`filter.${name}.clean`, ''],
      [`filter.${name}.smudge`, ''],
      [`filter.${name}.process`, ''],
      [`filter.${name}.required`, 'false'],
    ]),
    ...textconvs.map((name): [string, string] => [`diff.${name}.textconv`, 'cat']),
  ];
  const submodules = submoduleOverrides(await declared, keys);
  return withOverrides(env, root, [...STATIC_OVERRIDES, ...driverOverrides, ...submodules]);
}
