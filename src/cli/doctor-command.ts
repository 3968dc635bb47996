/**
 * `tsuka doctor`: checks configuration, every data file, the store and the model servers, and
 * prints what works (✓) and what to fix (✗ … → fix). Exit status 0 only when nothing is broken.
 */
import path from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import type { ConsoleIo as CliIo } from '../app/console-io.js';
import { loadToolSchemas } from '../core/tools/tool-schema-loader.js';
import { loadRoster } from '../core/data/load-roster.js';
import { CREATED_ROLES_FOLDER } from '../core/tools/impl/create-role.js';
import { loadProviderCatalogue } from '../core/provider/catalogue.js';
import { probeServer } from '../core/provider/probe-server.js';
import { openStore } from '../core/store/open-store.js';
import { dataProblemLines } from './failure-lines.js';
import { sqliteStorePath, sqliteStoreStats } from '../core/store/sqlite-maintenance.js';
import { formatBytes } from './format-bytes.js';
import { WORKFLOW_TOOL_NAMES } from '../core/tools/workflow-tool-names.js';
import { checkDiscord, checkPublicUrl, checkSlack, discordFaceLines } from './doctor-platforms.js';
import { selectCommandSandbox } from '../core/safety/select-sandbox.js';
import type { CommandSandbox } from '../core/safety/command-sandbox.js';
import { checkMcpServers, reportModelProfiles, reportSandboxDetails } from './doctor-extensions.js';
import { redisStoreLines, storeSecurityLines } from './doctor-store-security.js';
import { slackViewVerdict } from './doctor-slack-view.js';
import { SLACK_VIEWS_KEY, SLACK_VIEWS_NAMESPACE, type SlackViewsSeen } from '../commands/context/platform-views.js';
import { createConfigMasker } from '../app/config-masker.js';
import { createSecretMasker } from '../core/safety/secret-mask.js';

export interface DoctorOptions {
  io: CliIo;
  config?: AppConfig;
  configProblems?: string[];
  fetch?: typeof fetch;
}

export async function runDoctor(options: DoctorOptions): Promise<number> {
  const { config } = options;
  // Every line doctor prints passes the masker `ask` uses (the environment's secrets and each MCP
  // entry's own: a URL's password, a token in its query, its headers), whatever check wrote it.
  // The platforms' API URLs are endpoints to check, shown whole (credentials in them are still masked).
  const environment = withoutEndpoints(config?.environment ?? options.io.environment);
  const mask = config ? createConfigMasker({ ...config, environment }) : createSecretMasker(environment);
  const io: CliIo = { ...options.io, stdout: (text) => options.io.stdout(mask(text)), stderr: (text) => options.io.stderr(mask(text)) };
  let failures = 0;
  const ok = (text: string) => io.stdout(`✓ ${text}\n`);
  const bad = (text: string, fix?: string) => {
    failures++;
    io.stdout(`✗ ${text}${fix ? `\n    → ${fix}` : ''}\n`);
  };
  const info = (text: string) => io.stdout(`· ${text}\n`);

  io.stdout('TSUKA doctor\n\nConfiguration\n');
  if (!config) {
    for (const problem of options.configProblems ?? []) bad(problem);
    io.stdout('\nFix the configuration first; the other checks need it.\n');
    return 1;
  }
  ok('configuration is valid');
  info(
    config.slack
      ? `Slack: ${config.slack.appToken ? 'Socket Mode' : 'HTTP Events API'} via ${config.slack.apiUrl}`
      : 'Slack: not configured (set SLACK_BOT_TOKEN and SLACK_APP_TOKEN)',
  );
  info(config.discord ? `Discord: via ${config.discord.apiUrl}` : 'Discord: not configured (set DISCORD_BOT_TOKEN)');
  info(`workspace (the agents' jail): ${config.workspace}`);
  info(`data: ${config.dataDirectory}`);

  io.stdout('\nCommand sandbox\n');
  let sandbox: CommandSandbox | undefined;
  try {
    sandbox = await selectCommandSandbox({ ...config.sandbox, holdsPlatformTokens: config.slack !== undefined || config.discord !== undefined });
    if (sandbox.isolation === 'bubblewrap') {
      ok(sandbox.summary);
      reportSandboxDetails(sandbox, { ok, info });
    } else
      info(
        `${sandbox.summary}\n    → for full isolation install bubblewrap (apt-get install bubblewrap) where user namespaces are allowed${sandbox.isolation === 'environment-only' ? ', or set TSUKA_SANDBOX_USER to another user' : ''}`,
      );
  } catch (error) {
    bad(error instanceof Error ? error.message : String(error));
  }

  if (config.slack || config.discord) {
    io.stdout('\nChat platforms\n');
    const reporter = { ok, bad, info };
    if (config.slack) await checkSlack(config.slack, reporter, options.fetch);
    if (config.discord) await checkDiscord(config.discord, reporter, options.fetch);
    checkPublicUrl(config, reporter);
  }

  io.stdout('\nData files\n');
  let knownTools = new Set<string>();
  let safeTools = new Set<string>();
  try {
    const schemas = await loadToolSchemas(path.join(config.rootDirectory, 'tools_schemas'));
    knownTools = new Set([...schemas.keys(), ...WORKFLOW_TOOL_NAMES]);
    safeTools = new Set([...schemas].filter(([, schema]) => schema.riskLevel === 'SAFE').map(([name]) => name));
    ok(`${schemas.size} tool schemas`);
  } catch (error) {
    reportDataError('tools_schemas/', error, bad);
  }
  try {
    // Roles made with create_role: a broken or clashing one is skipped at start; doctor says which.
    const createdRoleWarnings: string[] = [];
    const avatarProblems: string[] = [];
    const roster = await loadRoster({
      rootDirectory: config.rootDirectory,
      knownTools,
      safeTools,
      extraRoleDirectories: [path.resolve(config.workspace, CREATED_ROLES_FOLDER)],
      onWarning: (problem) => createdRoleWarnings.push(`${problem.file}${problem.field === '/' ? '' : ` ${problem.field}`}: ${problem.message}`),
      onAvatarProblem: (problem) => avatarProblems.push(`${problem.file} ${problem.field}: ${problem.message}`),
    });
    for (const line of rosterNotes(createdRoleWarnings, avatarProblems, config.discord ? discordFaceLines(roster, config.publicUrl) : [])) info(line);
    ok(`${roster.roles.size} roles, ${roster.traits.size} traits, ${roster.characters.size} characters, ${roster.teams.size} teams`);
    if (!roster.characters.has(config.defaultCharacter))
      bad(
        `the default character "${config.defaultCharacter}" does not exist`,
        `set TSUKA_DEFAULT_CHARACTER to one of ${[...roster.characters.keys()].join(', ')}`,
      );
  } catch (error) {
    reportDataError('roster', error, bad);
  }

  io.stdout('\nState\n');
  try {
    const store = await openStore({ url: config.storeUrl, dataDirectory: config.dataDirectory });
    ok(`store opens: ${store.location}`);
    if (config.slack) {
      const verdict = slackViewVerdict(await store.namespace<SlackViewsSeen>(SLACK_VIEWS_NAMESPACE).get(SLACK_VIEWS_KEY));
      (verdict.level === 'ok' ? ok : info)(verdict.level === 'warn' ? `⚠ ${verdict.text}` : verdict.text);
    }
    await store.close();
    for (const line of [...(await redisStoreLines(config.storeUrl)), ...storeSecurityLines(config)]) info(line);
    const file = sqliteStorePath(config.storeUrl, config.dataDirectory);
    if (file) {
      const stats = await sqliteStoreStats(file);
      info(
        `store size ${formatBytes(stats.bytes)}; rows: ${
          Object.entries(stats.rows)
            .map(([name, count]) => `${name} ${count}`)
            .join(', ') || 'none'
        }`,
      );
    }
    info(
      config.retentionDays > 0
        ? `retention: runs and sessions older than ${config.retentionDays} days are pruned hourly (TSUKA_RETENTION_DAYS)`
        : 'retention: off (TSUKA_RETENTION_DAYS=0 keeps everything)',
    );
    info(
      config.auditRetentionDays > 0
        ? `audit log: entries older than ${config.auditRetentionDays} days are pruned hourly (TSUKA_AUDIT_RETENTION_DAYS)`
        : 'audit log: kept for ever (TSUKA_AUDIT_RETENTION_DAYS=0)',
    );
  } catch (error) {
    bad(error instanceof Error ? error.message : String(error), 'move the damaged file aside or point TSUKA_DATA_DIR / TSUKA_STORE_URL elsewhere');
  }

  io.stdout('\nModel servers\n');
  try {
    const catalogue = await loadProviderCatalogue(path.join(config.rootDirectory, 'providers.json'));
    const several = config.llm.baseURLs.length > 1;
    const targets: { id: string; displayName: string; baseURL: string; apiKey?: string; cloud?: boolean; apiKeyEnv?: string }[] = config.llm.baseURL
      ? config.llm.baseURLs.map((baseURL, index) => ({
          id: `configured-${index}`,
          displayName: several ? `TSUKA_LLM_BASE_URL server ${index + 1}` : 'TSUKA_LLM_BASE_URL',
          baseURL,
          apiKey: config.llm.apiKey,
        }))
      : catalogue.map((entry) => ({
          id: entry.id,
          displayName: entry.displayName,
          baseURL: entry.baseURL,
          apiKey: entry.apiKeyEnv ? config.environment[entry.apiKeyEnv] : undefined,
          cloud: entry.class === 'CLOUD',
          apiKeyEnv: entry.apiKeyEnv,
        }));
    let reachable = 0;
    const usedModels: string[] = [];
    const modelByServer: string[] = [];
    for (const target of targets) {
      if (target.cloud) {
        // Discovery never picks a cloud provider: it is used only when chosen explicitly.
        info(
          `${target.displayName}: not probed (a cloud provider is used only when TSUKA_LLM_BASE_URL points at ${target.baseURL}${target.apiKeyEnv ? `, with ${target.apiKeyEnv} or TSUKA_LLM_API_KEY` : ''})`,
        );
        continue;
      }
      const probe = await probeServer({ baseURL: target.baseURL, apiKey: target.apiKey, fetch: options.fetch, modelId: config.llm.modelId });
      if (probe.reachable) {
        reachable++;
        if (probe.modelId) {
          if (!usedModels.includes(probe.modelId)) usedModels.push(probe.modelId);
          modelByServer.push(`${target.baseURL}: ${probe.modelId}`);
        }
        ok(
          `${target.displayName} at ${target.baseURL}: ${probe.models.length} model(s)${probe.modelId ? `, would use ${probe.modelId}${probe.loaded ? ' (loaded)' : ''}` : ''}${probe.contextWindow ? `, context ${probe.contextWindow} tokens` : ''}`,
        );
        if (config.llm.modelId && !probe.models.some((model) => model.id === config.llm.modelId))
          bad(
            `${target.displayName} does not list the model ${config.llm.modelId}`,
            `pull or load it, or set TSUKA_LLM_MODEL to one of: ${probe.models.map((model) => model.id).join(', ')}`,
          );
        for (const step of probe.steps.filter((candidate) => !candidate.ok && candidate.step !== 'reachable')) info(`${target.displayName}: ${step.message}`);
      } else if (several) bad(`${target.displayName} at ${target.baseURL}: not reachable`, 'start it, or remove it from TSUKA_LLM_BASE_URL');
      else info(`${target.displayName} at ${target.baseURL}: not reachable`);
    }
    // Several servers share one queue: they must serve the same model.
    if (several && usedModels.length > 1)
      bad(`the model servers would use different models (${modelByServer.join(', ')})`, 'load the same model on each, or set TSUKA_LLM_MODEL');
    if (several && reachable > 0)
      info(
        `${reachable} of ${targets.length} servers answer; generations are spread over those that do, ${config.llm.concurrency ? `${config.llm.concurrency} at once` : 'one at once (local) or 4 (cloud)'} on each (TSUKA_LLM_CONCURRENCY)`,
      );
    if (reachable === 0 && config.llm.baseURL)
      bad(
        several
          ? `none of the configured model servers answers (TSUKA_LLM_BASE_URL is binding: no other server is used)`
          : `the configured model server ${config.llm.baseURL} does not answer (TSUKA_LLM_BASE_URL is binding: no other server is used)`,
        'start it, or change or unset TSUKA_LLM_BASE_URL',
      );
    else if (reachable === 0) bad('no model server answered', 'start Ollama (`ollama serve`), llama-server, LM Studio or vLLM, or set TSUKA_LLM_BASE_URL');
    await reportModelProfiles(config, usedModels, { ok, bad, info });
  } catch (error) {
    reportDataError('providers.json', error, bad);
  }

  io.stdout('\nMCP servers\n');
  await checkMcpServers(config, { ok, bad, info }, options.fetch, sandbox);

  io.stdout(failures === 0 ? '\nEverything checked works.\n' : `\n${failures} problem(s) to fix.\n`);
  return failures === 0 ? 0 : 1;
}

function reportDataError(what: string, error: unknown, bad: (text: string, fix?: string) => void): void {
  for (const problem of dataProblemLines(what, error)) bad(problem.text, problem.fix);
}

/** Settings named like secrets (`SLACK_*`, `DISCORD_*`) that hold only where to call. */
const ENDPOINT_SETTINGS = new Set(['SLACK_API_URL', 'DISCORD_API_URL']);

function withoutEndpoints(environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(environment).filter(([name]) => !ENDPOINT_SETTINGS.has(name)));
}

/** What loading the roster had to say: created roles skipped, picture files refused, each character's Discord face. */
function rosterNotes(createdRoleWarnings: string[], avatarProblems: string[], faces: string[]): string[] {
  return [...createdRoleWarnings.map((warning) => `created role: ${warning}`), ...avatarProblems.map((problem) => `character picture: ${problem}`), ...faces];
}
