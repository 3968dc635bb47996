import { beginWriteBeneath } from '../atomic-write.js';
import { iterateBody, openUrl } from '../fetch-limited.js';
import { formatBytes } from '../format-bytes.js';
import { writeRisk } from '../git-internals.js';
import { hostOf } from '../outgoing-secrets.js';
import { parseWebUrl } from '../private-address.js';
import type { CallPreview, CallRisk, RiskLevel, ToolContext, ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { classifyWebUrl, createGuardedFetch, findPrivateTarget, type WebGuardOptions } from '../web-risk.js';
import { statBeneath } from '../workspace-files.js';
import { displayPath, resolveForPreview } from '../workspace-paths.js';

export const DOWNLOAD_FILE_MAX_BYTES = 50 * 1024 * 1024;
export const DOWNLOAD_FILE_TIMEOUT_MS = 120_000;
const PUBLIC_RISK = { level: 'RESTRICTED', reason: 'saves a file from the web into the workspace' } as const;

const RANK: Readonly<Record<RiskLevel, number>> = { SAFE: 0, RESTRICTED: 1, DANGEROUS: 2 };

export type DownloadFileInput = { url: string; path?: string };

/** Options of `download_file`: the fetch to use and how host names are resolved for the SSRF guard. */
export interface DownloadFileOptions extends WebGuardOptions {
  fetch?: typeof fetch;
}

/** The stronger of the URL's risk and the destination's (a write into `.git/` is DANGEROUS). */
async function classifyDownload(input: DownloadFileInput, context: ToolContext, options: WebGuardOptions): Promise<CallRisk> {
  const [urlRisk, pathRisk] = await Promise.all([
    classifyWebUrl(input.url, PUBLIC_RISK, options),
    writeRisk(context, input.path ?? defaultFileName(input.url), PUBLIC_RISK),
  ]);
  return RANK[pathRisk.level] > RANK[urlRisk.level] ? pathRisk : urlRisk;
}

/** `download_file`: saves a URL into the workspace (default name: the URL's file name), up to 50 MB. */
export function createDownloadFileTool(options: DownloadFileOptions = {}): ToolImplementation<DownloadFileInput> {
  return {
    name: 'download_file',

    classify: (input, context) => classifyDownload(input, context, options),

    outgoing: (input) => ({ destination: hostOf(input.url), texts: [input.url] }),

    async preview(input, context): Promise<CallPreview> {
      const risk = await classifyDownload(input, context, options);
      const destination = input.path ?? defaultFileName(input.url);
      const target = await resolveForPreview(context.workspace, destination);
      const details = [`url: ${input.url}`, `to: ${target.display}`, `risk: ${risk.level} — ${risk.reason}`];
      if (!target.ok) details.push(`refused: ${target.problem}`);
      else {
        const existing = await statBeneath(context.workspace, target.absolutePath);
        if (existing) details.push(`replaces an existing ${formatBytes(existing.size)} file`);
      }
      return { summary: `download_file ${input.url} → ${target.display}`, details };
    },

    async execute(input, context) {
      const url = parseWebUrl(input.url);
      if (!url) throw new ToolFailureError(`"${input.url}" is not an http(s) URL.`);
      const absolutePath = await context.workspace.resolve(input.path ?? defaultFileName(input.url));
      const shown = displayPath(context.workspace, absolutePath);
      if ((await statBeneath(context.workspace, absolutePath))?.isDirectory()) throw new ToolFailureError(`${shown} is a folder; give a file path.`);
      // A private target was approved as DANGEROUS; a public one must stay public on every hop.
      const allowPrivate = (await findPrivateTarget(url, options)) !== undefined;
      const opened = await openUrl(url, {
        fetch: allowPrivate ? (options.fetch ?? fetch) : createGuardedFetch(options.fetch ?? fetch, options),
        timeoutMs: DOWNLOAD_FILE_TIMEOUT_MS,
        signal: context.signal,
        allowPrivate,
      });
      const { response, finalUrl } = opened;
      if (!response.ok) {
        await response.body?.cancel();
        throw new ToolFailureError(`${finalUrl.host} answered HTTP ${response.status} for ${finalUrl.href}.`);
      }
      const declared = Number(response.headers.get('content-length') ?? Number.NaN);
      if (declared > DOWNLOAD_FILE_MAX_BYTES) {
        await response.body?.cancel();
        throw new ToolFailureError(`The file is ${formatBytes(declared)}, over the ${formatBytes(DOWNLOAD_FILE_MAX_BYTES)} download limit.`);
      }
      // The temp file lives in the target's folder, held open by descriptor, and is renamed within it (issue 29).
      const pending = await beginWriteBeneath(context.workspace, absolutePath, 'download').catch(async (error: unknown) => {
        await response.body?.cancel();
        throw error;
      });
      let total = 0;
      try {
        for await (const chunk of iterateBody(opened)) {
          total += chunk.length;
          if (total > DOWNLOAD_FILE_MAX_BYTES) {
            throw new ToolFailureError(`The download passed the ${formatBytes(DOWNLOAD_FILE_MAX_BYTES)} limit and was stopped.`);
          }
          await pending.handle.write(chunk);
        }
      } catch (error) {
        await pending.discard();
        throw error;
      }
      await pending.commit();
      const type = (response.headers.get('content-type') ?? 'unknown type').split(';')[0];
      return { output: `Downloaded ${formatBytes(total)} (${type}) from ${finalUrl.href} to ${shown}.`, display: formatBytes(total) };
    },
  };
}

/** The last path segment of the URL, made safe as a file name; `download` when there is none. */
export function defaultFileName(raw: string): string {
  const url = parseWebUrl(raw);
  const segment = url ? url.pathname.split('/').filter(Boolean).pop() : undefined;
  let name = '';
  if (segment) {
    try {
      name = decodeURIComponent(segment);
    } catch (error) {
      if (!(error instanceof URIError)) throw error;
      name = segment;
    }
  }
  const safe = name.replace(/[^\w.+-]+/g, '_').replace(/^\.+/, '');
  return safe === '' ? 'download' : safe;
}
