/**
 * `tsuka manifest slack [--name NAME]` (issue 40): prints the Slack app manifest to paste at
 * https://api.slack.com/apps → Create New App → From an app manifest, with the app's name (and the
 * bot's display name) set to the one chosen — the scopes, events and commands exactly those of
 * `slack-app-manifest.yaml`, which a test holds to what the code uses. Needs no configuration.
 * Exit 0 with the manifest on stdout; 2 for a bad argument.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ConsoleIo } from '../app/console-io.js';

/** Slack's limit for an app's name (display_information.name), in characters. */
const SLACK_APP_NAME_MAX = 35;

/** Slack's limit for the agent view's `agent_description` (the manifest schema's maxLength), in characters. */
export const SLACK_AGENT_DESCRIPTION_MAX = 300;

const USAGE = 'Usage: tsuka manifest slack [--name NAME]';

/** `text` within Slack's 300 characters: cut with an ellipsis when longer. */
export function trimAgentDescription(text: string): string {
  const characters = [...text.trim()];
  if (characters.length <= SLACK_AGENT_DESCRIPTION_MAX) return characters.join('');
  return `${characters
    .slice(0, SLACK_AGENT_DESCRIPTION_MAX - 1)
    .join('')
    .trimEnd()}…`;
}

/**
 * The manifest with `name` as the app's and the bot user's name (a YAML double-quoted string), and
 * the agent view's description within Slack's limit (a longer one would make Slack refuse the manifest).
 */
export function slackManifest(root: string, name: string): string {
  const manifest = readFileSync(path.join(root, 'slack-app-manifest.yaml'), 'utf8');
  const quoted = JSON.stringify(name);
  return manifest
    .replace(/^(display_information:\n {2}name: ).*$/m, `$1${quoted}`)
    .replace(/^( {2}bot_user:\n {4}display_name: ).*$/m, `$1${quoted}`)
    .replace(/^( {4}agent_description: )(.*)$/m, (line, head: string, text: string) =>
      [...text].length <= SLACK_AGENT_DESCRIPTION_MAX ? line : `${head}${JSON.stringify(trimAgentDescription(text))}`,
    );
}

/** The problem with a chosen name, or undefined when Slack takes it. */
export function appNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'the name is empty';
  if ([...name].length > SLACK_APP_NAME_MAX) return `Slack takes at most ${SLACK_APP_NAME_MAX} characters for an app's name`;
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'the name holds a control character';
  return undefined;
}

export function runManifest(argv: readonly string[], io: ConsoleIo, root: string): number {
  const [platform, ...rest] = argv;
  if (platform !== 'slack') {
    io.stderr(
      `${platform === undefined ? 'Name the platform.' : `No manifest for "${platform}" (Discord apps have none: \`tsuka doctor\` prints the invite link).`}\n${USAGE}\n`,
    );
    return 2;
  }
  let name = 'TSUKA';
  for (let index = 0; index < rest.length; index += 1) {
    const argument = rest[index]!;
    if (argument === '--name' && rest[index + 1] !== undefined) name = rest[++index]!;
    else if (argument.startsWith('--name=')) name = argument.slice('--name='.length);
    else {
      io.stderr(`Unknown argument "${argument}".\n${USAGE}\n`);
      return 2;
    }
  }
  const problem = appNameProblem(name);
  if (problem) {
    io.stderr(`tsuka manifest: ${problem}.\n`);
    return 2;
  }
  io.stdout(slackManifest(root, name));
  return 0;
}
