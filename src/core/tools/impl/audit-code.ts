import { extname } from 'node:path';
import { AUDIT_RULES, type AuditRule, type AuditSeverity, maskSecretMatch, SEVERITY_ORDER } from '../audit-rules.js';
import { looksBinary } from '../binary-content.js';
import type { ToolImplementation } from '../tool.js';
import { statBeneath } from '../workspace-files.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { SKIPPED_DIRECTORIES, walkFiles } from '../walk-files.js';
import { displayPath } from '../workspace-paths.js';

export const AUDIT_DEFAULT_MAX_FILES = 500;
export const AUDIT_MAX_FILES = 5000;
const AUDIT_MAX_FILE_BYTES = 1024 * 1024;
/** Findings listed before the output only counts the rest. */
const AUDIT_MAX_LISTED_FINDINGS = 200;
const MAX_EXCERPT_CHARACTERS = 160;
const AUDIT_SKIPPED_DIRECTORIES = new Set([...SKIPPED_DIRECTORIES, 'dist', 'build', 'coverage', '.venv', 'venv', '__pycache__']);

export type AuditCodeInput = { targetPath?: string; maxFiles?: number };

interface Finding {
  rule: AuditRule;
  file: string;
  line: number;
  excerpt: string;
}

/** `audit_code`: a static scan for injection patterns and leaked secrets; secret values never appear. */
export const auditCodeTool: ToolImplementation<AuditCodeInput> = {
  name: 'audit_code',

  preview: (input) => ({ summary: `audit_code ${input.targetPath ?? '.'}` }),

  async execute(input, context) {
    const start = await context.workspace.resolve(input.targetPath ?? '.');
    const shown = displayPath(context.workspace, start);
    if (!(await statBeneath(context.workspace, start))) throw new ToolFailureError(`${shown} does not exist.`);
    const maxFiles = Math.min(AUDIT_MAX_FILES, Math.max(1, Math.floor(input.maxFiles ?? AUDIT_DEFAULT_MAX_FILES)));
    const findings: Finding[] = [];
    let scanned = 0;
    let stoppedAtLimit = false;
    for await (const file of walkFiles(context.workspace, start, { signal: context.signal, skipDirectories: AUDIT_SKIPPED_DIRECTORIES })) {
      if (file.size === 0 || file.size > AUDIT_MAX_FILE_BYTES) continue;
      if (scanned === maxFiles) {
        stoppedAtLimit = true;
        break;
      }
      const bytes = await file.read();
      if (!bytes || looksBinary(bytes)) continue;
      scanned += 1;
      const relative = displayPath(context.workspace, file.absolutePath);
      const rules = AUDIT_RULES.filter((rule) => !rule.extensions || rule.extensions.includes(extname(file.absolutePath).toLowerCase()));
      bytes
        .toString('utf8')
        .split('\n')
        .forEach((text, index) => {
          for (const rule of rules) {
            if (rule.pattern.test(text)) findings.push({ rule, file: relative, line: index + 1, excerpt: excerptOf(text) });
          }
        });
    }
    const limitNote = stoppedAtLimit ? `\n[stopped after ${maxFiles} files; raise maxFiles or narrow targetPath]` : '';
    const header = `audit_code ${shown}: ${findings.length} finding(s) in ${scanned} file(s).`;
    if (findings.length === 0)
      return { output: `${header} Nothing matched the injection and secret rules.${limitNote}`, display: `0 findings · ${scanned} files` };
    return { output: `${header}\n${formatFindings(findings)}${limitNote}`, display: `${findings.length} findings · ${scanned} files` };
  },
};

const SECRET_RULES = AUDIT_RULES.filter((rule) => rule.kind === 'secret');

/** Every excerpt is masked with all secret rules: an injection finding may sit on a line with a token. */
function excerptOf(text: string): string {
  const trimmed = SECRET_RULES.reduce((visible, rule) => maskSecretMatch(visible, rule.pattern), text).trim();
  return trimmed.length > MAX_EXCERPT_CHARACTERS ? `${trimmed.slice(0, MAX_EXCERPT_CHARACTERS)}…` : trimmed;
}

function formatFindings(findings: Finding[]): string {
  const sections: string[] = [];
  let listed = 0;
  for (const severity of SEVERITY_ORDER) {
    const group = findings.filter((finding) => finding.rule.severity === severity);
    if (group.length === 0) continue;
    sections.push(`${label(severity)} (${group.length})`);
    for (const finding of group) {
      if (listed === AUDIT_MAX_LISTED_FINDINGS) break;
      listed += 1;
      sections.push(`  ${finding.file}:${finding.line} [${finding.rule.id}] ${finding.rule.message}: ${finding.excerpt}`);
    }
  }
  if (listed < findings.length) sections.push(`[${findings.length - listed} more findings not listed]`);
  return sections.join('\n');
}

function label(severity: AuditSeverity): string {
  return severity.toUpperCase();
}
