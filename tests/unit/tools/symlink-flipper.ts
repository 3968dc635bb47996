/**
 * The attacker of the race tests: another process that flips `<workspace>/d` as fast as it can,
 * until stopped, so that a path checked and then opened lands outside whenever a flip falls
 * between the check and the open.
 * - `folder`: `d` is a real folder in the workspace one moment and a link to the outside folder
 *   the next (the probe; the folder is briefly missing between the two).
 * - `link`: `d` is always a link, atomically replaced between one to a folder inside the
 *   workspace and one to the outside folder (never missing, so far more flips hit).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

export type FlipMode = 'folder' | 'link';

const FLIP_LOOP = `
const fs = require('node:fs');
const [mode, folder, inside, outside] = process.argv.slice(1);
const spare = folder + '.flip';
// Each state is held for a few system calls so that the folder is seldom missing mid-flip.
const stay = () => { for (let i = 0; i < 4; i += 1) fs.lstatSync(outside); };
const swapLink = (target) => { fs.symlinkSync(target, spare); fs.renameSync(spare, folder); };
process.stdout.write('ready\\n');
for (;;) {
  if (mode === 'link') {
    try { swapLink(inside); swapLink(outside); } catch {}
    continue;
  }
  try { fs.renameSync(folder, inside); } catch {}
  try { fs.symlinkSync(outside, folder); } catch {}
  stay();
  try { fs.unlinkSync(folder); } catch {}
  try { fs.renameSync(inside, folder); } catch {}
  stay();
}
`;

export interface SymlinkFlipper {
  stop(): Promise<void>;
}

/**
 * Starts the flipping process and resolves once its loop runs. In `folder` mode `folder` is a
 * real folder and `inside` a free name beside it where it is parked; in `link` mode `inside` is
 * the real folder the link points to when it points inside.
 */
export async function startSymlinkFlipper(mode: FlipMode, folder: string, inside: string, outside: string): Promise<SymlinkFlipper> {
  const child: ChildProcess = spawn(process.execPath, ['-e', FLIP_LOOP, mode, folder, inside, outside], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  await once(child.stdout as NodeJS.ReadableStream, 'data');
  return {
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
