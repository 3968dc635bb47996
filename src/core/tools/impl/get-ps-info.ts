import { readFile, statfs } from 'node:fs/promises';
import os from 'node:os';
import { runCommand } from '../../safety/process-runner.js';
import { createFallbackSandbox } from '../../safety/fallback-sandbox.js';
import { formatBytes } from '../format-bytes.js';
import type { ToolContext, ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';

const TOP_PROCESSES = 15;
const PS_TIMEOUT_MS = 10_000;
// A fixed command, not the agent's: it runs on the host because a sandbox's own PID namespace
// would show only itself, and this tool exists to show the machine's processes.
const HOST_PROCESS_TABLE = createFallbackSandbox();

export type PsInfoCategory = 'cpu' | 'memory' | 'disk' | 'processes' | 'system';
export type GetPsInfoInput = { category: PsInfoCategory };

/** `get_ps_info`: a read-only snapshot of the machine the bot runs on. */
export const getPsInfoTool: ToolImplementation<GetPsInfoInput> = {
  name: 'get_ps_info',

  preview: (input) => ({ summary: `get_ps_info ${input.category}` }),

  async execute(input, context) {
    const output = await REPORTS[input.category](context);
    return { output, display: input.category };
  },
};

const REPORTS: Record<PsInfoCategory, (context: ToolContext) => Promise<string>> = {
  async cpu() {
    const cpus = os.cpus();
    const [one, five, fifteen] = os.loadavg().map((value) => value.toFixed(2));
    return [
      `model: ${cpus[0]?.model.trim() ?? 'unknown'}`,
      `cores: ${cpus.length} (available parallelism ${os.availableParallelism()})`,
      `speed: ${cpus[0]?.speed ?? 0} MHz`,
      `load average (1/5/15 min): ${one} / ${five} / ${fifteen}`,
    ].join('\n');
  },

  async memory() {
    const lines = [`total: ${formatBytes(os.totalmem())}`, `free: ${formatBytes(os.freemem())}`];
    const meminfo = await readProcFile('/proc/meminfo');
    if (meminfo) {
      const field = (name: string): number | undefined => {
        const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(meminfo);
        return match?.[1] ? Number(match[1]) * 1024 : undefined;
      };
      const available = field('MemAvailable');
      const swapTotal = field('SwapTotal');
      const swapFree = field('SwapFree');
      if (available !== undefined) lines.push(`available: ${formatBytes(available)}`);
      if (swapTotal !== undefined && swapFree !== undefined) lines.push(`swap: ${formatBytes(swapTotal - swapFree)} used of ${formatBytes(swapTotal)}`);
    }
    lines.push(`this bot: ${formatBytes(process.memoryUsage().rss)} resident`);
    return lines.join('\n');
  },

  async disk(context) {
    const lines: string[] = [];
    for (const [label, path] of [
      ['workspace', context.workspace.root],
      ['/', '/'],
    ] as const) {
      const stats = await statfs(path);
      const total = stats.blocks * stats.bsize;
      const available = stats.bavail * stats.bsize;
      const used = total - stats.bfree * stats.bsize;
      const percent = total > 0 ? Math.round((used / total) * 100) : 0;
      lines.push(`${label}: ${formatBytes(used)} used of ${formatBytes(total)} (${percent}%), ${formatBytes(available)} available`);
    }
    return lines.join('\n');
  },

  async processes(context) {
    const result = await runCommand({
      command: 'ps -eo pid,rss,comm --sort=-rss',
      cwd: context.workspace.root,
      sandbox: HOST_PROCESS_TABLE,
      env: context.childEnv,
      timeoutMs: PS_TIMEOUT_MS,
      signal: context.signal,
    });
    if (result.exitCode !== 0)
      throw new ToolFailureError(`ps failed (${result.exitCode === null ? 'killed' : `exit ${result.exitCode}`}): ${result.output.trim().slice(0, 200)}`);
    const rows = result.output
      .trim()
      .split('\n')
      .slice(1, TOP_PROCESSES + 1);
    const formatted = rows.map((row) => {
      const [pid = '', rss = '0', ...command] = row.trim().split(/\s+/);
      return `${pid.padStart(7)}  ${formatBytes(Number(rss) * 1024).padStart(9)}  ${command.join(' ')}`;
    });
    return [`top ${formatted.length} processes by memory (pid, resident, command):`, ...formatted].join('\n');
  },

  async system() {
    const uptimeHours = (os.uptime() / 3600).toFixed(1);
    return [
      `platform: ${os.platform()} ${os.release()} (${os.arch()})`,
      `os: ${os.version()}`,
      `hostname: ${os.hostname()}`,
      `uptime: ${uptimeHours} h`,
      `node: ${process.version}`,
      `cpus: ${os.cpus().length}, memory: ${formatBytes(os.totalmem())}`,
    ].join('\n');
  },
};

/** /proc exists on Linux only; elsewhere the report simply has fewer lines. */
async function readProcFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
