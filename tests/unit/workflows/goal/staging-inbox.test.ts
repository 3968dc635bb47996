/**
 * Issue 35: a parallel /goal step works in a staging copy that leaves `.tsuka` out, yet chat
 * attachments are saved in the channel workspace's `.tsuka/inbox`. The copy gets the inbox (and
 * only the inbox) read-only, so the step's file tools and commands can read an attachment, while
 * the rest of `.tsuka` stays out and nothing a step writes under `.tsuka` is merged back.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INBOX_FOLDER } from '../../../../src/commands/context/inbox-names.js';
import { silentLogger } from '../../../../src/core/logger.js';
import { createBubblewrapSandbox } from '../../../../src/core/safety/bubblewrap-sandbox.js';
import { createChildEnv } from '../../../../src/core/safety/child-env.js';
import type { CommandSandbox } from '../../../../src/core/safety/command-sandbox.js';
import { createFallbackSandbox } from '../../../../src/core/safety/fallback-sandbox.js';
import { executeCommandTool } from '../../../../src/core/tools/impl/execute-command.js';
import { readFileTool } from '../../../../src/core/tools/impl/read-file.js';
import type { ToolContext } from '../../../../src/core/tools/tool.js';
import { mergeStagings } from '../../../../src/core/workflows/goal/merge-stagings.js';
import { createStaging, type Staging } from '../../../../src/core/workflows/goal/parallel-workspace.js';
import { BUBBLEWRAP_UNAVAILABLE } from '../../../support/test-sandbox.js';
import { writeTinyNodeProject } from '../../../support/tiny-node-project.js';

let base: string;
let workspace: string;
let stagingRoot: string;
const ATTACHMENT = `${INBOX_FOLDER}/2026-12-08-notes.txt`;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-staging-inbox-')));
  workspace = path.join(base, 'workspace');
  await writeTinyNodeProject(workspace);
  // As /goal does: the staging folder lives in the workspace's `.tsuka`, beside the inbox.
  stagingRoot = path.join(workspace, '.tsuka', 'staging', 'run-1');
  await write(workspace, ATTACHMENT, 'the attached notes\n');
  await write(workspace, '.tsuka/tools/deploy.json', '{"command":"deploy"}');
  await write(workspace, '.tsuka/roles/helper.json', '{}');
  await write(workspace, '.tsuka/runbooks/restart.md', 'private runbook');
  await write(workspace, '.tsuka/conflicts/old/a.txt', 'old conflict copy');
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function write(root: string, relative: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(path.join(root, relative)), { recursive: true });
  await fs.writeFile(path.join(root, relative), text);
}
const exists = (target: string): Promise<boolean> =>
  fs.lstat(target).then(
    () => true,
    () => false,
  );

function toolContext(staging: Staging, sandbox: CommandSandbox): ToolContext {
  return {
    workspace: staging.workspace,
    signal: new AbortController().signal,
    childEnv: createChildEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base, LANG: 'C' }),
    sandbox,
    maskSecrets: (text) => text,
    runId: 'run-1',
    agentName: 'geordi',
    logger: silentLogger,
    services: { cwd: staging.root },
  };
}

describe('a staging copy and the chat inbox', () => {
  it('lets read_file read an attachment from the inbox, still marked untrusted', async () => {
    const staging = await createStaging(workspace, stagingRoot, 'step-2-geordi');
    const result = await readFileTool.execute({ path: ATTACHMENT }, toolContext(staging, createFallbackSandbox()));
    expect(result.output).toContain('the attached notes');
    expect(result.untrusted).toBe('attached files (.tsuka/inbox)');
    // The copy's files are read-only: the step reads the attachment, it does not edit it.
    expect((await fs.stat(path.join(staging.root, ATTACHMENT))).mode & 0o777).toBe(0o444);
  });

  it('leaves the rest of .tsuka out: created tools and roles, runbooks, conflict copies, the staging folder', async () => {
    const staging = await createStaging(workspace, stagingRoot, 'step-2-geordi');
    expect((await fs.readdir(path.join(staging.root, '.tsuka'))).sort()).toEqual(['inbox']);
    await expect(readFileTool.execute({ path: '.tsuka/runbooks/restart.md' }, toolContext(staging, createFallbackSandbox()))).rejects.toThrow(/does not exist/);
  });

  it('merges back nothing a step writes under .tsuka, in the inbox or beside it', async () => {
    const staging = await createStaging(workspace, stagingRoot, 'step-2-geordi');
    const copied = path.join(staging.root, ATTACHMENT);
    await fs.chmod(copied, 0o644);
    await fs.writeFile(copied, 'edited by the step');
    await write(staging.root, `${INBOX_FOLDER}/planted.txt`, 'planted');
    await write(staging.root, '.tsuka/tools/evil.json', '{"command":"rm -rf /"}');
    await write(staging.root, 'result.md', 'the step result');

    expect((await staging.diff()).map((change) => change.path)).toEqual(['result.md']);
    const report = await mergeStagings(workspace, [staging]);
    expect(report.applied).toEqual(['result.md']);
    expect(await fs.readFile(path.join(workspace, ATTACHMENT), 'utf8')).toBe('the attached notes\n');
    expect(await exists(path.join(workspace, INBOX_FOLDER, 'planted.txt'))).toBe(false);
    expect(await exists(path.join(workspace, '.tsuka/tools/evil.json'))).toBe(false);
  });

  it('copies no link: neither one inside the inbox nor an inbox that is itself a link', async () => {
    const outside = path.join(base, 'outside');
    await write(outside, 'secret.txt', 'secret');
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(workspace, INBOX_FOLDER, 'leak.txt'));
    const first = await createStaging(workspace, stagingRoot, 'step-2-geordi');
    expect(await fs.readdir(path.join(first.root, INBOX_FOLDER))).toEqual(['2026-12-08-notes.txt']);

    await fs.rm(path.join(workspace, INBOX_FOLDER), { recursive: true });
    await fs.symlink(outside, path.join(workspace, INBOX_FOLDER));
    const second = await createStaging(workspace, stagingRoot, 'step-3-worf');
    expect(await exists(path.join(second.root, '.tsuka'))).toBe(false);
  });

  it('copies nothing when the workspace has no inbox', async () => {
    await fs.rm(path.join(workspace, INBOX_FOLDER), { recursive: true });
    const staging = await createStaging(workspace, stagingRoot, 'step-2-geordi');
    expect(await exists(path.join(staging.root, '.tsuka'))).toBe(false);
  });
});

const skipped = (reason: string | undefined) => (reason === undefined ? '' : ` (skipped: ${reason})`);
const sandboxes: [string, () => CommandSandbox, string | undefined][] = [
  ['the env-only fallback', () => createFallbackSandbox(), undefined],
  ['bubblewrap', () => createBubblewrapSandbox({ network: 'none', hiddenPaths: [] }), BUBBLEWRAP_UNAVAILABLE],
];

describe.each(sandboxes)('a command in a staging copy under %s', (_name, makeSandbox, unavailable) => {
  it.skipIf(unavailable !== undefined)(`reads the attachment, and git status does not list the inbox copy${skipped(unavailable)}`, async () => {
    const staging = await createStaging(workspace, stagingRoot, 'step-2-geordi');
    const context = toolContext(staging, makeSandbox());
    const read = await executeCommandTool.execute({ command: `cat ${ATTACHMENT}` }, context);
    expect(read.output).toBe('exit 0\nthe attached notes');
    const status = await executeCommandTool.execute({ command: 'git status --short' }, context);
    expect(status.output).toBe('exit 0\n(no output)');
  });
});
