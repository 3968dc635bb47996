/**
 * `tsuka policy explain "<command>" --channel slack:T1/C1 [--tool NAME]`: the approval policy's rule
 * the call would meet there ("default" for the default) and who may decide.
 */
import type { AppConfig } from '../config/app-config.js';
import { explainCall } from '../core/policy/explain.js';
import type { ConsoleIo as CliIo } from '../app/console-io.js';

const USAGE = 'Usage: tsuka policy explain "<command>" --channel slack:T1/C1 [--tool TOOL_NAME]\n';

function option(args: string[], name: string): string | undefined {
  const index = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (index < 0) return undefined;
  const arg = args[index]!;
  const [value] = arg === name ? args.splice(index, 2).slice(1) : [args.splice(index, 1)[0]!.slice(name.length + 1)];
  return value;
}

export function runPolicy(argv: string[], config: AppConfig, io: CliIo): number {
  const args = [...argv];
  const action = args.shift();
  const channel = option(args, '--channel');
  const tool = option(args, '--tool') ?? 'execute_command';
  if (action !== 'explain' || !channel || (tool === 'execute_command' && args.length === 0)) {
    io.stderr(USAGE);
    return 2;
  }
  if (!/^(slack|discord|playground):[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/.test(channel)) {
    io.stderr(`--channel "${channel}" is not a channel: use slack:<team>/<channel> or discord:<guild>/<channel>.\n`);
    return 2;
  }
  const policy = config.policy?.policy;
  if (!policy) {
    io.stdout(
      "No approval policy is configured (TSUKA_POLICY_FILE, the policy section, or policy.json beside mcp.json): each channel's dangerousApproval rule decides.\n",
    );
    return 0;
  }
  io.stdout(explainCall(policy, { channel, toolName: tool, ...(args.length > 0 ? { command: args.join(' ') } : {}) }));
  return 0;
}
