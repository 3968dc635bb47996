/**
 * The declarative roster: roles, traits, characters and teams, loaded from JSON files at start
 * (`roles/`, `traits/`, `characters/`, `teams/`) and validated against the schemas beside the loader.
 */
import type { ReasoningEffort } from '../model/language-model.js';
import type { AvatarImage } from './avatar-files.js';

export interface Role {
  /** File id, e.g. `developer` for roles/developer.json. */
  name: string;
  displayName: string;
  description: string;
  systemPrompt: string;
  /** Tools this role may use at all. */
  allowedTools: string[];
  /** Tools offered from the first round; the rest of `allowedTools` are loaded on demand with `load_tools`. */
  coreTools?: string[];
  reasoningEffort?: ReasoningEffort;
  /**
   * False: this role's commands get no network; `host`: the host's network, loopback services
   * included (opt-in, unless TSUKA_SANDBOX_NETWORK=none); unset: the sandbox's default (bubblewrap only).
   */
  network?: boolean | 'host';
  /**
   * Roles made with `create_role`: the tools the creating character's role allowed when it was made.
   * The role's tools never exceed it (checked at creation, at load and when a character switches to it).
   */
  ceiling?: string[];
  /** Roles made with `create_role`: the character that made it. */
  createdBy?: string;
}

export interface Trait {
  name: string;
  displayName: string;
  description: string;
  stylePrompt: string;
}

export interface Character {
  /** File id, e.g. `geordi`. */
  name: string;
  /** The name the character answers to in chat (`@Geordi`). */
  aiName: string;
  displayName: string;
  /** What the /goal planner reads to pick agents. */
  description: string;
  roles: string[];
  activeRole: string;
  trait: string;
  reasoningEffort?: ReasoningEffort;
  /** An emoji shortcode (`:wrench:`), a unicode emoji, an https URL, or an image file relative to the character's data file. */
  avatar: string;
}

export type TeamMode = 'orchestrated' | 'round-robin' | 'pipeline' | 'hybrid';

export type AcceptanceCheck =
  | { type: 'command'; command: string; timeoutMs?: number }
  | { type: 'file-exists'; path: string }
  | { type: 'json-valid'; path: string };

export interface TeamStation {
  member: string;
  task?: string;
  acceptance?: AcceptanceCheck[];
  maxAttempts?: number;
}

export interface Team {
  name: string;
  displayName: string;
  description: string;
  members: string[];
  mode: TeamMode;
  orchestrator?: string;
  rounds?: number;
  discussionRounds?: number;
  voting?: boolean;
  maxRoundsPerMember?: number;
  acceptance?: AcceptanceCheck[];
  stations?: TeamStation[];
}

/** Everything loaded from the data folders, cross-checked. */
export interface Roster {
  roles: Map<string, Role>;
  traits: Map<string, Trait>;
  characters: Map<string, Character>;
  teams: Map<string, Team>;
  /** The pictures of characters whose `avatar` names an image file, read and checked at load (`avatar-files.ts`). */
  avatarImages?: ReadonlyMap<string, AvatarImage>;
}
