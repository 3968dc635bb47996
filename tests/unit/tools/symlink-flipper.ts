/**
 * The attacker of the race tests: another process that flips `<workspace>/d` as fast as it can,
 * until stopped, between a real folder in the workspace and a link to a folder outside it (the
 * issue's probe; the folder is briefly missing between the two), so that a path checked and then
 * opened lands outside whenever a flip falls between the check and the open.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

const FLIP_LOOP = `
const fs = require('node:fs');
const [folder, parked, outside] = process.argv.slice(1);
// Each state is held for a few system calls so that the folder is seldom missing mid-flip.
const stay = () => { for (let i = 0; i < 4; i += 1) fs.lstatSync(outside); };
process.stdout.write('ready\\n');
for (;;) {
  try { fs.renameSync(folder, parked); } catch {}
  try { fs.symlinkSync(outside, folder); } catch {}
  stay();
  try { fs.unlinkSync(folder); } catch {}
  try { fs.renameSync(parked, folder); } catch {}
  stay();
}
`;

export interface SymlinkFlipper {
  stop(): Promise<void>;
}

/** Starts the flipping process and resolves once its loop runs; `folder` is a real folder, `parked` a free name where it waits while `folder` is a link. */
export async function startSymlinkFlipper(folder: string, parked: string, outside: string): Promise<SymlinkFlipper> {
  const child: ChildProcess = spawn(process.execPath, ['-e', FLIP_LOOP, folder, parked, outside], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  await Promise.race([
    once(child.stdout as NodeJS.ReadableStream, 'data'),
    exited.then(() => {
      throw new Error('The symlink flipper exited before it started flipping.');
    }),
  ]);
  return {
    async stop() {
      // A flipper that died early would let every race test pass without a race.
      const alive = child.exitCode === null && child.signalCode === null;
      child.kill('SIGKILL');
      await exited;
      if (!alive) throw new Error('The symlink flipper stopped by itself before the test ended.');
    },
  };
}
