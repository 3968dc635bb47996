import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Every tool name the registry ships; what the loader is told exists. */
export const KNOWN_TOOLS: ReadonlySet<string> = new Set([
  'read_file',
  'write_file',
  'edit_file',
  'delete_file',
  'list_dir',
  'grep_search',
  'execute_command',
  'get_ps_info',
  'web_search',
  'browse_url',
  'download_file',
  'audit_code',
  'load_tools',
  'switch_skill',
  'create_role',
  'create_tool',
  'save_memory',
  'recall_memory',
  'update_memory',
  'forget_memory',
  'report_status',
  'route_next',
  'cast_vote',
  'post_note',
  'read_notes',
  'send_message',
  'spawn_agent',
  'request_goal',
  'request_team',
  'request_call',
]);

/** A small valid roster: two roles, one trait, three characters, one orchestrated team `x`. */
export function validRosterFiles(): Record<string, unknown> {
  const character = (aiName: string, role: string): Record<string, unknown> => ({
    aiName,
    displayName: aiName,
    description: `${aiName} does ${role} work.`,
    roles: [role],
    activeRole: role,
    trait: 'plain',
    avatar: ':robot_face:',
  });
  return {
    'roles/developer.json': {
      displayName: 'Developer',
      description: 'Writes code.',
      systemPrompt: ['You write code.', 'Run the tests.'],
      allowedTools: ['read_file', 'write_file', 'execute_command', 'report_status'],
      coreTools: ['read_file', 'report_status'],
      reasoningEffort: 'medium',
    },
    'roles/supervisor.json': {
      displayName: 'Supervisor',
      description: 'Routes work.',
      systemPrompt: 'You coordinate.',
      allowedTools: ['route_next', 'report_status'],
    },
    'traits/plain.json': { displayName: 'Plain', description: 'Plain words.', stylePrompt: 'Speak plainly.' },
    'characters/geordi.json': character('Geordi', 'developer'),
    'characters/worf.json': character('Worf', 'developer'),
    'characters/pike.json': character('Pike', 'supervisor'),
    'teams/x.json': {
      displayName: 'X',
      description: 'A test team.',
      members: ['geordi', 'worf', 'pike'],
      mode: 'orchestrated',
      orchestrator: 'pike',
    },
  };
}

/**
 * Writes a roster into a fresh temp folder. Values are JSON-encoded, except strings (written as raw text,
 * to test broken JSON); `undefined` leaves a file out.
 */
export async function writeRoster(files: Record<string, unknown>): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-roster-'));
  for (const folder of ['roles', 'traits', 'characters', 'teams']) await mkdir(path.join(root, folder));
  for (const [relativePath, content] of Object.entries(files)) {
    if (content === undefined) continue;
    const target = path.join(root, relativePath);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return root;
}

/** Removes a folder made by `writeRoster`. */
export async function removeRoster(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
}
