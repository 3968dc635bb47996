/**
 * `cat d/f` is SAFE while `d` is a folder in the workspace. The attack of issue 29 turns `d` into
 * a link to a host folder after the check: the call must not print the host file — refused by the
 * check made again just before the run, and, for the window that remains between that check and
 * the shell's own open, by the sandbox, in which host folders outside the workspace do not exist.
 */
import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBubblewrapSandbox } from '../../../src/core/safety/bubblewrap-sandbox.js';
import { probeSandbox } from '../../../src/core/safety/select-sandbox.js';
import { executeCommandTool } from '../../../src/core/tools/impl/execute-command.js';
import type { ToolContext } from '../../../src/core/tools/tool.js';
import { type SymlinkFlipper, startSymlinkFlipper } from './symlink-flipper.js';
import { createTestToolContext, type TestToolContext } from './tool-test-context.js';

const MARKER = 'HOST-SECRET-MARKER';
/** Calls in the loop under bubblewrap (each starts a sandbox, ~0.1 s on a busy machine: fewer than the file tools' 150). */
const CALLS = 30;
const bubblewrap = createBubblewrapSandbox({ network: false, hiddenPaths: [] });
const unavailable = await probeSandbox(bubblewrap);

let test: TestToolContext;
let flipper: SymlinkFlipper | undefined;

beforeEach(async () => {
  test = await createTestToolContext();
  await mkdir(join(test.root, 'd'));
  await writeFile(join(test.root, 'd', 'f'), 'inside\n');
  await writeFile(join(test.outside, 'f'), `${MARKER}\n`);
});
afterEach(async () => {
  await flipper?.stop();
  flipper = undefined;
  await test.cleanup();
});

/** Classifies, then runs — as the agent does — and returns the risk and the output. */
async function classifyAndRun(context: ToolContext, between?: () => Promise<void>): Promise<{ level: string; output: string }> {
  const input = { command: 'cat d/f' };
  const risk = await executeCommandTool.classify?.(input, context);
  await between?.();
  const result = await executeCommandTool.execute(input, context);
  return { level: risk?.level ?? 'none', output: result.output };
}

describe('execute_command when `d` becomes a link outside after the check', () => {
  it('refuses the SAFE call instead of printing the host file (the check is made again before the run)', async () => {
    const result = await classifyAndRun(test.context, async () => {
      await rename(join(test.root, 'd'), join(test.root, 'parked'));
      await symlink(test.outside, join(test.root, 'd'));
    });
    expect(result.level).toBe('SAFE');
    expect(result.output).not.toContain(MARKER);
    expect(result.output).toContain('Not run: the command was SAFE when it was checked but is DANGEROUS now');
  });

  it('runs the call as before when nothing changed', async () => {
    expect(await classifyAndRun(test.context)).toEqual({ level: 'SAFE', output: 'exit 0\ninside' });
  });

  it.skipIf(unavailable !== undefined)(
    `under bubblewrap, a flipping loop never gets a host file printed${unavailable ? ` (skipped: ${unavailable})` : ''}`,
    async () => {
      const context = { ...test.context, sandbox: bubblewrap };
      flipper = await startSymlinkFlipper(join(test.root, 'd'), join(test.root, '.parked'), test.outside);
      const outputs: string[] = [];
      for (let index = 0; index < CALLS; index += 1) outputs.push((await classifyAndRun(context)).output);
      expect(outputs.filter((output) => output.includes(MARKER)).length).toBe(0);
    },
  );
});
