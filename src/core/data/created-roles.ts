/**
 * Roles made at run time (`create_role`, kept in `<workspace>/.tsuka/roles/`), loaded beside the
 * shipped roster (issue 29). Such a file is written by an agent into a folder agents can write, so:
 * - a broken or clashing one never stops a start: it is skipped with a warning (a clash names both
 *   files), and the rest load;
 * - its tools never exceed the ceiling recorded when it was made (the creator's tools), and a file
 *   without a recorded ceiling gets the SAFE tools at most; a tool that does not exist is dropped.
 */
import type { ValidateFunction } from 'ajv';
import type { DataProblem } from './data-problem.js';
import type { JsonFolderContents } from './read-json-folder.js';
import type { RoleFile } from './roster-schemas.js';
import { schemaProblems } from './roster-schemas.js';
import type { Role } from './types.js';

const ROLE_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;

export interface CreatedRolesInput {
  folders: readonly JsonFolderContents[];
  /** Role name → file of every shipped role (a created role may not take one of their names). */
  shipped: ReadonlyMap<string, string>;
  validate: ValidateFunction<RoleFile>;
  knownTools: ReadonlySet<string>;
  /** The tools a created role without a recorded ceiling may keep (the SAFE ones). */
  safeTools: ReadonlySet<string>;
  build(file: RoleFile, name: string): Role;
}

export interface CreatedRoles {
  roles: Map<string, Role>;
  files: Map<string, string>;
  /** Every name seen on disk, loaded or not (so a reference to a skipped role is not reported again). */
  names: Set<string>;
  warnings: DataProblem[];
}

/** Loads what can be loaded of the created-role folders; never throws for a bad file. */
export function loadCreatedRoles(input: CreatedRolesInput): CreatedRoles {
  const result: CreatedRoles = { roles: new Map(), files: new Map(), names: new Set(), warnings: [] };
  const skip = (file: string, message: string): void => {
    result.warnings.push({ file, field: '/', message: `${message} The role is skipped; the other roles load.` });
  };
  for (const folder of input.folders) {
    for (const name of folder.names) result.names.add(name);
    for (const problem of folder.problems) result.warnings.push({ ...problem, message: `${problem.message} The role is skipped; the other roles load.` });
    for (const { file, name, value } of folder.files) {
      const clash = input.shipped.get(name) ?? result.files.get(name);
      if (clash !== undefined) {
        skip(file, `The role "${name}" clashes with ${clash}, which defines it already (${file} is not loaded).`);
        continue;
      }
      if (!ROLE_NAME_PATTERN.test(name)) {
        skip(file, `The file name "${name}" must be lower case letters, digits and _ (starting with a letter).`);
        continue;
      }
      if (!input.validate(value)) {
        const problems = schemaProblems(file, input.validate.errors);
        skip(file, `It is not a valid role: ${problems.map((problem) => `${problem.field} ${problem.message}`).join('; ')}`);
        continue;
      }
      if (value.name !== undefined && value.name !== name) {
        skip(file, `"${value.name}" does not match the file name "${name}" (the file name is the id).`);
        continue;
      }
      const role = clampRole(input.build(value, name), file, input, result.warnings);
      result.roles.set(name, role);
      result.files.set(name, file);
    }
  }
  return result;
}

/** The role with its tools cut to those that exist and to its ceiling (recorded, else the SAFE tools). */
function clampRole(role: Role, file: string, input: CreatedRolesInput, warnings: DataProblem[]): Role {
  const ceiling = role.ceiling ? new Set(role.ceiling.filter((tool) => input.knownTools.has(tool))) : input.safeTools;
  const unknown = role.allowedTools.filter((tool) => !input.knownTools.has(tool));
  const beyond = role.allowedTools.filter((tool) => input.knownTools.has(tool) && !ceiling.has(tool));
  if (unknown.length > 0) warnings.push({ file, field: '/allowedTools', message: `Unknown tools are left out: ${unknown.join(', ')}.` });
  if (beyond.length > 0) {
    const limit = role.ceiling ? 'the tools of the role that created it' : 'the SAFE tools (it records no creator ceiling)';
    warnings.push({ file, field: '/allowedTools', message: `Tools beyond ${limit} are left out: ${beyond.join(', ')}.` });
  }
  const allowedTools = role.allowedTools.filter((tool) => ceiling.has(tool));
  // A role file in the workspace (a hostile repository may bring one) never widens the network:
  // `"network": "host"` or `true` would reach the bot's own loopback services from its commands.
  const { network, ...rest } = role;
  if (network !== undefined && network !== false)
    warnings.push({ file, field: '/network', message: `"network": ${JSON.stringify(network)} is ignored in a created role.` });
  return {
    ...rest,
    ...(network === false ? { network } : {}),
    allowedTools,
    ...(role.coreTools ? { coreTools: role.coreTools.filter((tool) => allowedTools.includes(tool)) } : {}),
    ceiling: [...ceiling].sort(),
  };
}
