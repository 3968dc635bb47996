/**
 * `/tsuka help` (issue 40): what a newcomer can do, grouped, one line a command with what it does —
 * not one line of every subcommand's name. The router's subcommands and this list are checked
 * against each other by a test, so a new subcommand cannot go unexplained.
 */

/** One entry: how it is typed, and what it does in a few words. */
interface HelpEntry {
  usage: string;
  what: string;
  /** The `/tsuka` subcommand it documents (none for mentions and other slash commands). */
  subcommand?: string;
}

const group = (title: string, entries: HelpEntry[]) => ({ title, entries });

export const TSUKA_HELP_GROUPS = [
  group('Talk', [
    { usage: '@TSUKA geordi why does npm test fail?', what: 'ask a character; the reply comes in a thread' },
    { usage: 'stop · reset · @TSUKA worf (in a thread)', what: 'cancel the turn · start afresh · hand over' },
    { usage: '/call spock worf "topic"', what: 'a debate between characters, with a verdict to adopt' },
    { usage: '/team <team> <task> · /goal <objective>', what: 'a squad at work · planned team work on the workspace' },
    { usage: '/tsuka characters · teams · roles', what: 'who can be asked, the teams, the roles', subcommand: 'characters teams roles' },
  ]),
  group('Model', [
    { usage: 'status', what: 'the model, what is running, how long TSUKA has been up', subcommand: 'status' },
    { usage: 'queue', what: 'who waits for the model, and for how long', subcommand: 'queue' },
    { usage: 'model [id]', what: 'the model in use and the others; an id switches (admins)', subcommand: 'model' },
    { usage: 'effort [none|low|medium|xhigh|auto]', what: 'pin the reasoning effort of every character (admins)', subcommand: 'effort' },
    { usage: 'benchmark', what: 'measure the model; its tier follows (admins)', subcommand: 'benchmark' },
    {
      usage: 'policy explain <command> · policy reload',
      what: 'the approval rule a command meets here and who decides · read the policy file again (admins)',
      subcommand: 'policy',
    },
  ]),
  group('Memory and decisions', [
    { usage: 'memory [query] · memory share <id>', what: "this channel's remembered facts · make one visible in every channel", subcommand: 'memory' },
    { usage: 'forget <id> · pin <id> · unpin <id>', what: 'drop a fact · keep it in every prompt · stop that', subcommand: 'forget pin unpin' },
    { usage: 'decisions', what: 'decisions adopted from /call verdicts in this channel', subcommand: 'decisions' },
  ]),
  group('Runs', [
    { usage: 'runs · stop [run]', what: 'recent runs of this channel · stop a running one', subcommand: 'runs stop' },
    { usage: 'export [run] [md|json] · trace [run]', what: "a run's transcript as a file · its calls step by step", subcommand: 'export trace' },
  ]),
  group('This channel', [
    { usage: 'default <character> · reset', what: 'who answers unnamed mentions here · back to the default', subcommand: 'default reset' },
    { usage: 'tools [remove <name>]', what: 'the tools by source; remove a created one (admins)', subcommand: 'tools' },
    {
      usage: 'schedule <every 30m | daily 07:30 | cron> <@character text | /team … | /goal …>',
      what: 'a standing job of this channel',
      subcommand: 'schedule',
    },
    { usage: 'schedules · unschedule <id>', what: "this channel's standing jobs · remove one", subcommand: 'schedules unschedule' },
  ]),
];

/** Every `/tsuka` subcommand the help explains (with `help` itself). */
export const HELPED_SUBCOMMANDS: ReadonlySet<string> = new Set([
  'help',
  ...TSUKA_HELP_GROUPS.flatMap((entry) => entry.entries.flatMap((item) => item.subcommand?.split(' ') ?? [])),
]);

export const TSUKA_HELP = [
  '**TSUKA** — characters who answer in threads, debate and work; anything risky waits for an Approve. Below, each command is `/tsuka <command>`.',
  ...TSUKA_HELP_GROUPS.flatMap(({ title, entries }) => [`**${title}**`, ...entries.map((entry) => `• \`${entry.usage}\` — ${entry.what}`)]),
].join('\n');
