/**
 * `/tsuka runs | export | trace | stop`: the runs of the channel the command is typed in
 * (`core/scopes/run-access.ts`). An admin may name a run of another channel: its trace is answered
 * to the admin alone, its transcript goes to the admin's direct messages — never into the channel
 * the command was typed in — and each such reach is written to the audit log first.
 */
import type { SlashCommandEvent } from '../inbound-event.js';
import type { ChatSurface } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { ActiveRuns } from '../runs/active-runs.js';
import type { AuditPlace } from '../../core/audit/audit-log.js';
import { exportRunJson, exportRunMarkdown, formatRunTrace } from '../../core/store/run-export.js';
import type { RunRecord } from '../../core/store/run-types.js';
import { noSuchRunInChannel, runAccess, runsOfChannel, type RunAccess } from '../../core/scopes/run-access.js';

export const RUN_SUBCOMMANDS = ['runs', 'export', 'trace', 'stop'] as const;
export type RunSubcommand = (typeof RUN_SUBCOMMANDS)[number];

const EXPORT_FORMATS = ['md', 'json'];
/** A trace fits one chat message on every platform (Discord's 2,000 characters is the smallest). */
const TRACE_LIMITS = { perItemChars: 400, maxChars: 1900 };
const LISTED_RUNS = 10;

export interface RunSubcommandContext {
  deps: CommandDependencies;
  activeRuns: ActiveRuns;
}

/** One command's view: who asks, from where, and what they may reach. */
interface Asker {
  event: SlashCommandEvent;
  surface: ChatSurface;
  deps: CommandDependencies;
  here: AuditPlace;
  reply(text: string): Promise<void>;
  access(run: RunRecord | undefined): RunAccess;
}

export const isRunSubcommand = (name: string): name is RunSubcommand => (RUN_SUBCOMMANDS as readonly string[]).includes(name);

export async function handleRunSubcommand(
  subcommand: RunSubcommand,
  args: string[],
  event: SlashCommandEvent,
  surface: ChatSurface,
  context: RunSubcommandContext,
): Promise<void> {
  const { deps } = context;
  const viewer = { channel: event.channel, isAdmin: deps.settings.admins.includes(event.user) };
  const asker: Asker = {
    event,
    surface,
    deps,
    here: { platform: event.platform, channelId: event.channel },
    reply: (text) => event.reply(deps.maskSecrets(text)),
    access: (run) => runAccess(run, viewer),
  };
  if (subcommand === 'runs') return listRuns(asker);
  if (subcommand === 'export') return exportRun(asker, args);
  if (subcommand === 'trace') return traceRun(asker, args.join(' ') || undefined);
  return stopRuns(asker, args.join(' ') || undefined, context.activeRuns);
}

/** The newest run of this channel. */
async function latestHere(asker: Asker): Promise<RunRecord | undefined> {
  return runsOfChannel(await asker.deps.runs.list(), asker.event.channel)[0];
}

async function listRuns(asker: Asker): Promise<void> {
  const runs = runsOfChannel(await asker.deps.runs.list(), asker.event.channel).slice(0, LISTED_RUNS);
  if (runs.length === 0) return asker.reply('No runs in this channel yet.');
  return asker.reply(
    runs
      .map((run) => `\`${run.id}\` ${run.kind} · ${run.status} · ${new Date(run.createdAt).toISOString().slice(0, 16).replace('T', ' ')} · ${run.title}`)
      .join('\n'),
  );
}

/** The named run when the asker may reach it, else the answer that reveals nothing. */
async function reachableRun(asker: Asker, runId: string | undefined): Promise<{ run: RunRecord; access: RunAccess } | undefined> {
  const run = runId ? await asker.deps.runs.get(runId) : await latestHere(asker);
  const access = asker.access(run);
  if (!run || access === 'none') {
    await asker.reply(runId ? noSuchRunInChannel(runId) : 'No run in this channel yet.');
    return undefined;
  }
  return { run, access };
}

async function exportRun(asker: Asker, args: string[]): Promise<void> {
  const format = (args.find((word) => EXPORT_FORMATS.includes(word.toLowerCase()))?.toLowerCase() ?? 'md') as 'md' | 'json';
  const reached = await reachableRun(
    asker,
    args.find((word) => !EXPORT_FORMATS.includes(word.toLowerCase())),
  );
  if (!reached) return;
  const { run, access } = reached;
  const { deps, event, surface } = asker;
  const events = await deps.runs.events(run.id);
  const content = deps.maskSecrets(format === 'json' ? exportRunJson(run, events) : exportRunMarkdown(run, events));
  const file = { fileName: `${run.id}.${format}`, title: `Transcript of ${run.id}`, content };
  const formatName = format === 'json' ? 'JSON' : 'Markdown';
  if (access === 'channel') {
    await deps.audit.append({ type: 'export', actor: event.user, where: asker.here, runId: run.id, format });
    await surface.uploadFile({ channel: event.channel, ...file });
    return asker.reply(`Uploaded the transcript of ${run.id} (${formatName}).`);
  }
  // Another channel's run, named by an admin: to the admin alone, or not at all.
  const onHost = `Export it on the host instead: \`tsuka export ${run.id}\`.`;
  if (!surface.uploadToUser) return asker.reply(`${run.id} belongs to another channel, and this platform cannot send you a direct message. ${onHost}`);
  await deps.audit.append({ type: 'admin-action', action: 'export', actor: event.user, where: asker.here, runId: run.id, runWhere: run.where });
  try {
    await surface.uploadToUser({ user: event.user, ...file });
  } catch (error) {
    deps.logger.warn('could not send an export to an admin directly', { runId: run.id, error });
    return asker.reply(`${run.id} belongs to another channel, and its transcript could not be sent to you in a direct message. ${onHost}`);
  }
  return asker.reply(`${run.id} belongs to another channel: its transcript (${formatName}) was sent to you in a direct message.`);
}

async function traceRun(asker: Asker, runId: string | undefined): Promise<void> {
  const reached = await reachableRun(asker, runId);
  if (!reached) return;
  const { run, access } = reached;
  if (access === 'admin') {
    await asker.deps.audit.append({ type: 'admin-action', action: 'trace', actor: asker.event.user, where: asker.here, runId: run.id, runWhere: run.where });
  }
  // An ephemeral reply: the requester alone sees the reasoning and the tool outputs.
  return asker.reply(formatRunTrace(run, await asker.deps.runs.events(run.id), TRACE_LIMITS));
}

async function stopRuns(asker: Asker, runId: string | undefined, activeRuns: ActiveRuns): Promise<void> {
  const { event, deps } = asker;
  if (runId) {
    const run = await deps.runs.get(runId);
    const access = asker.access(run);
    if (!run || access === 'none' || run.status !== 'running') return asker.reply(`No run ${runId} is running in this channel.`);
    if (access === 'admin') {
      await deps.audit.append({ type: 'admin-action', action: 'stop', actor: event.user, where: asker.here, runId, runWhere: run.where });
    }
    const outcome = await activeRuns.stop(runId, event.user);
    return asker.reply(
      outcome === 'stopped'
        ? `Stopping ${runId}.`
        : outcome === 'forbidden'
          ? 'Only the person who started that run or an admin can stop it.'
          : `No run ${runId} is running in this channel.`,
    );
  }
  const mine: string[] = [];
  for (const id of await activeRuns.startedBy(event.user)) {
    if ((await deps.runs.get(id))?.where.channelId === event.channel) mine.push(id);
  }
  for (const id of mine) await activeRuns.stop(id, event.user);
  return asker.reply(mine.length ? `Stopping ${mine.join(', ')}.` : 'Nothing of yours is running in this channel.');
}
