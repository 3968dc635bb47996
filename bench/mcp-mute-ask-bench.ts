/**
 * A mute MCP server and `tsuka ask` (not a test; issue 29): the wall time of one `tsuka ask` with no
 * MCP server and with one stdio server that accepts the connection and never answers. Goal: the mute
 * server costs at most its start timeout (`startTimeoutS`, default 5 s) — it cost ~69 s before (the
 * 60 s call timeout held the process at exit). Run: `npx tsx bench/mcp-mute-ask-bench.ts`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedModelServer } from '../tests/support/scripted-model-server.js';

const BIN = fileURLToPath(new URL('../bin/tsuka.js', import.meta.url));
const GOAL_EXTRA_MS = 6000;

async function askOnce(withMute: boolean): Promise<number> {
  const server = await startScriptedModelServer();
  const home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-mute-bench-'));
  try {
    const mute = path.join(home, 'mute.mjs');
    await writeFile(mute, 'process.stdin.resume(); setInterval(() => {}, 1 << 30);\n');
    const servers = withMute ? { mute: { command: process.execPath, args: [mute], sandbox: false } } : {};
    await writeFile(path.join(home, 'mcp.json'), JSON.stringify({ mcpServers: servers }));
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'ask', 'geordi', 'hello'], {
      cwd: home,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TSUKA_LLM_BASE_URL: server.baseURL,
        TSUKA_DATA_DIR: path.join(home, 'data'),
        TSUKA_WORKSPACE: path.join(home, 'workspace'),
        TSUKA_SANDBOX: 'none',
      },
      stdio: 'ignore',
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    if (code !== 0) throw new Error(`tsuka ask exited with ${code}`);
    return performance.now() - started;
  } finally {
    await server.close();
    await rm(home, { recursive: true, force: true });
  }
}

const plain = await askOnce(false);
const muted = await askOnce(true);
const extra = muted - plain;
console.log(
  `tsuka ask: ${Math.round(plain)} ms without MCP, ${Math.round(muted)} ms with a mute server (+${Math.round(extra)} ms; goal ≤ +${GOAL_EXTRA_MS} ms) ${extra <= GOAL_EXTRA_MS ? '✓' : '✗'}`,
);
