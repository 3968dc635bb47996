import path from 'node:path';
import { DataFileError } from '../errors.js';
import type { DataProblem } from './data-problem.js';
import { readJsonFolder, type JsonDataFile, type JsonFolderContents } from './read-json-folder.js';
import { loadCreatedRoles } from './created-roles.js';
import { checkRosterReferences, type RosterSources } from './roster-references.js';
import { ownValidator } from '../validation/own-validator.js';
import { getRosterValidators, ROSTER_SCHEMAS, schemaProblems, type CharacterFile, type RoleFile, type TeamFile, type TraitFile } from './roster-schemas.js';
import type { Character, Role, Roster, Team, Trait } from './types.js';
import { isAvatarFile, readAvatarFile, type AvatarImage } from './avatar-files.js';
import type { ValidateFunction } from 'ajv';

/** Where to read the roster from, and the tools that exist (the registry's names). */
export interface LoadRosterOptions {
  /** Folder holding `roles/`, `traits/`, `characters/` and `teams/`. */
  rootDirectory: string;
  knownTools: ReadonlySet<string>;
  /**
   * Further folders of role files (roles made at runtime by `create_role`); missing folders are
   * skipped. A broken or clashing file there is skipped with a warning, never fatal, and each role's
   * tools are clamped to its recorded ceiling (`created-roles.ts`).
   */
  extraRoleDirectories?: string[];
  /** The tools a created role without a recorded ceiling may keep (the SAFE ones); none when not given. */
  safeTools?: ReadonlySet<string>;
  /** Told of every created-role file that was skipped or cut down. */
  onWarning?: (problem: DataProblem) => void;
  /** Told of every character picture file that was not used (the character keeps its generated picture). */
  onAvatarProblem?: (problem: DataProblem) => void;
  /**
   * These very files passed the JSON Schema checks before (the caller compared a fingerprint of their
   * bytes): skip compiling the schemas. Names, file-name ids and references are still checked.
   */
  schemaChecked?: boolean;
}

/** Stands in for a compiled schema when the files were checked before. */
function alreadyChecked<T>(): ValidateFunction<T> {
  return Object.assign((_value: unknown): _value is T => true, { errors: null }) as unknown as ValidateFunction<T>;
}

const ENTRY_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;

/**
 * Reads and validates every roster file. Collects every problem — invalid JSON, schema errors, broken
 * references — and throws them together as one `DataFileError`, so a broken roster is fixed in one pass.
 */
export async function loadRoster(options: LoadRosterOptions): Promise<Roster> {
  const root = path.resolve(options.rootDirectory);
  const validators = options.schemaChecked
    ? { role: alreadyChecked<RoleFile>(), trait: alreadyChecked<TraitFile>(), character: alreadyChecked<CharacterFile>(), team: alreadyChecked<TeamFile>() }
    : getRosterValidators();
  const [roleFolder, traitFolder, characterFolder, teamFolder, ...extraRoleFolders] = await Promise.all([
    readJsonFolder(root, path.join(root, 'roles')),
    readJsonFolder(root, path.join(root, 'traits')),
    readJsonFolder(root, path.join(root, 'characters')),
    readJsonFolder(root, path.join(root, 'teams')),
    ...(options.extraRoleDirectories ?? []).map((directory) => readJsonFolder(root, path.resolve(root, directory), { optional: true })),
  ]);
  const problems: DataProblem[] = [];
  const roles = buildEntries(collect(roleFolder, problems), validators.role, problems, buildRole);
  if (extraRoleFolders.some((folder) => folder.names.size > 0 || folder.problems.length > 0)) {
    // Written by agents into the workspace: checked in full whatever the fingerprint says, never fatal.
    const created = loadCreatedRoles({
      folders: extraRoleFolders,
      shipped: new Map([...roleFolder.names].map((name) => [name, roles.files.get(name) ?? `roles/${name}.json`])),
      validate: options.schemaChecked ? ownValidator<RoleFile>(ROSTER_SCHEMAS.role) : validators.role,
      knownTools: options.knownTools,
      safeTools: options.safeTools ?? new Set(),
      build: buildRole,
    });
    for (const [name, role] of created.roles) roles.entries.set(name, role);
    for (const [name, file] of created.files) roles.files.set(name, file);
    for (const warning of created.warnings) options.onWarning?.(warning);
  }
  const traits = buildEntries(
    collect(traitFolder, problems),
    validators.trait,
    problems,
    (file, name): Trait => ({
      name,
      displayName: file.displayName,
      description: file.description,
      stylePrompt: joinLines(file.stylePrompt),
    }),
  );
  const characters = buildEntries(
    collect(characterFolder, problems),
    validators.character,
    problems,
    (file, name): Character =>
      withoutUndefined({
        name,
        aiName: file.aiName,
        displayName: file.displayName,
        description: file.description,
        roles: [...file.roles],
        activeRole: file.activeRole,
        trait: file.trait,
        reasoningEffort: file.reasoningEffort,
        avatar: file.avatar,
      }),
  );
  const teams = buildEntries(
    collect(teamFolder, problems),
    validators.team,
    problems,
    (file, name): Team =>
      withoutUndefined({
        name,
        displayName: file.displayName,
        description: file.description,
        members: [...file.members],
        mode: file.mode,
        orchestrator: file.orchestrator,
        rounds: file.rounds,
        discussionRounds: file.discussionRounds,
        voting: file.voting,
        maxRoundsPerMember: file.maxRoundsPerMember,
        acceptance: file.acceptance && structuredClone(file.acceptance),
        stations: file.stations && structuredClone(file.stations),
      }),
  );

  const roster: Roster = { roles: roles.entries, traits: traits.entries, characters: characters.entries, teams: teams.entries };
  const sources: RosterSources = {
    files: { role: roles.files, trait: traits.files, character: characters.files, team: teams.files },
    existing: {
      role: new Set([roleFolder, ...extraRoleFolders].flatMap((folder) => [...folder.names])),
      trait: traitFolder.names,
      character: characterFolder.names,
    },
  };
  problems.push(...checkRosterReferences(roster, sources, options.knownTools));
  if (problems.length > 0) throw new DataFileError(problems);
  const avatarImages = await loadAvatarImages(root, roster.characters, characters.files, options.onAvatarProblem);
  return avatarImages.size > 0 ? { ...roster, avatarImages } : roster;
}

/** The pictures of the characters whose `avatar` names an image file; a bad one is reported and left out. */
async function loadAvatarImages(
  root: string,
  characters: ReadonlyMap<string, Character>,
  files: ReadonlyMap<string, string>,
  onProblem: ((problem: DataProblem) => void) | undefined,
): Promise<Map<string, AvatarImage>> {
  const images = new Map<string, AvatarImage>();
  await Promise.all(
    [...characters.values()]
      .filter((character) => isAvatarFile(character.avatar))
      .map(async (character) => {
        const read = await readAvatarFile(root, files.get(character.name) ?? `characters/${character.name}.json`, character.avatar);
        if ('image' in read) images.set(character.name, read.image);
        else onProblem?.(read.problem);
      }),
  );
  return images;
}

function buildRole(file: RoleFile, name: string): Role {
  return withoutUndefined({
    name,
    displayName: file.displayName,
    description: file.description,
    systemPrompt: joinLines(file.systemPrompt),
    allowedTools: [...file.allowedTools],
    coreTools: file.coreTools && [...file.coreTools],
    reasoningEffort: file.reasoningEffort,
    network: file.network,
    ceiling: file.ceiling && [...file.ceiling],
    createdBy: file.createdBy,
  });
}

function collect(folder: JsonFolderContents, problems: DataProblem[]): JsonDataFile[] {
  problems.push(...folder.problems);
  return folder.files;
}

function buildEntries<FileShape extends { name?: string }, Entry>(
  files: readonly JsonDataFile[],
  validate: ValidateFunction<FileShape>,
  problems: DataProblem[],
  build: (file: FileShape, name: string) => Entry,
): { entries: Map<string, Entry>; files: Map<string, string> } {
  const entries = new Map<string, Entry>();
  const sourceFiles = new Map<string, string>();
  for (const { file, name, value } of files) {
    let valid = true;
    if (!ENTRY_NAME_PATTERN.test(name)) {
      problems.push({ file, field: '/', message: `The file name "${name}" must be lower case letters, digits and _ (starting with a letter).` });
      valid = false;
    }
    if (!validate(value)) {
      problems.push(...schemaProblems(file, validate.errors));
      continue;
    }
    if (value.name !== undefined && value.name !== name) {
      problems.push({ file, field: '/name', message: `"${value.name}" does not match the file name "${name}" (the file name is the id).` });
      valid = false;
    }
    if (!valid) continue;
    entries.set(name, build(value, name));
    sourceFiles.set(name, file);
  }
  return { entries, files: sourceFiles };
}

/** Drops keys whose value is undefined, so optional settings that were not written stay absent. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}

function joinLines(text: string | string[]): string {
  return typeof text === 'string' ? text : text.join('\n');
}
