/**
 * The rule table of `audit_code`. Adding a check means adding a row. Patterns run per line;
 * `secret` rows never show the matched value (only a masked stub).
 */

export type AuditSeverity = 'critical' | 'high' | 'medium' | 'low';

export interface AuditRule {
  id: string;
  severity: AuditSeverity;
  kind: 'injection' | 'secret';
  /** Per-line pattern. Without the `g` flag: rules are tested, not iterated. */
  pattern: RegExp;
  message: string;
  /** File extensions the rule applies to (lowercase, with dot); absent = every text file. */
  extensions?: readonly string[];
}

const JS = ['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx', '.vue', '.svelte', '.html'] as const;
const PY = ['.py'] as const;
const CODE = [...JS, ...PY, '.php', '.rb', '.go', '.java', '.kt', '.cs', '.rs', '.sh'] as const;

export const AUDIT_RULES: readonly AuditRule[] = [
  {
    id: 'eval',
    severity: 'high',
    kind: 'injection',
    pattern: /(?<![\w.$])eval\s*\(/,
    message: 'eval() runs arbitrary code',
    extensions: [...JS, ...PY, '.php', '.rb'],
  },
  {
    id: 'new-function',
    severity: 'high',
    kind: 'injection',
    pattern: /\bnew\s+Function\s*\(/,
    message: 'new Function() compiles code from a string',
    extensions: JS,
  },
  {
    id: 'exec-template',
    severity: 'critical',
    kind: 'injection',
    pattern: /\b(?:exec|execSync|spawn|spawnSync)\s*\(\s*`[^`]*\$\{/,
    message: 'shell command built from a template string (command injection)',
    extensions: JS,
  },
  {
    id: 'exec-concat',
    severity: 'high',
    kind: 'injection',
    pattern: /\b(?:exec|execSync)\s*\(\s*(?:["'][^"']*["']\s*\+|\w+\s*\+)/,
    message: 'shell command built by concatenation (command injection)',
    extensions: JS,
  },
  {
    id: 'sql-concat',
    severity: 'high',
    kind: 'injection',
    pattern: /["'`]\s*(?:SELECT\b[^"'`]*\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b[^"'`]*["'`]\s*\+/i,
    message: 'SQL built by string concatenation (SQL injection); use parameters',
    extensions: CODE,
  },
  {
    id: 'sql-template',
    severity: 'high',
    kind: 'injection',
    pattern: /(?:`|\bf["'])\s*(?:SELECT\b[^`"']*\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b[^`"']*(?:\$\{|\{)/i,
    message: 'SQL built with a template/f-string (SQL injection); use parameters',
    extensions: CODE,
  },
  {
    id: 'inner-html',
    severity: 'medium',
    kind: 'injection',
    pattern: /\.(?:inner|outer)HTML\s*(?:\+)?=(?!=)/,
    message: 'assignment to innerHTML (XSS)',
    extensions: JS,
  },
  {
    id: 'dangerously-set-inner-html',
    severity: 'medium',
    kind: 'injection',
    pattern: /dangerouslySetInnerHTML/,
    message: 'dangerouslySetInnerHTML (XSS)',
    extensions: JS,
  },
  {
    id: 'pickle-loads',
    severity: 'high',
    kind: 'injection',
    pattern: /\bpickle\.loads?\s*\(/,
    message: 'pickle.load(s) of data can execute code',
    extensions: PY,
  },
  {
    id: 'yaml-load',
    severity: 'high',
    kind: 'injection',
    pattern: /\byaml\.load\s*\((?![^)]*Loader\s*=\s*(?:yaml\.)?C?SafeLoader)/,
    message: 'yaml.load without SafeLoader can build arbitrary objects; use yaml.safe_load',
    extensions: PY,
  },
  {
    id: 'os-system',
    severity: 'high',
    kind: 'injection',
    pattern: /\bos\.(?:system|popen)\s*\(/,
    message: 'os.system/os.popen run through the shell',
    extensions: PY,
  },
  {
    id: 'subprocess-shell',
    severity: 'high',
    kind: 'injection',
    pattern: /\bsubprocess\.\w+\([^)]*shell\s*=\s*True/,
    message: 'subprocess with shell=True',
    extensions: PY,
  },
  {
    id: 'tls-disabled',
    severity: 'medium',
    kind: 'injection',
    pattern:
      /rejectUnauthorized\s*:\s*false|NODE_TLS_REJECT_UNAUTHORIZED\s*=\s*["']?0|\bverify\s*=\s*False\b|InsecureSkipVerify\s*:\s*true|CURLOPT_SSL_VERIFYPEER\s*,\s*(?:false|0)/,
    message: 'TLS certificate verification disabled',
  },
  { id: 'aws-access-key', severity: 'critical', kind: 'secret', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, message: 'AWS access key id' },
  { id: 'private-key', severity: 'critical', kind: 'secret', pattern: /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----/, message: 'private key block' },
  { id: 'slack-token', severity: 'critical', kind: 'secret', pattern: /\bxox[bpaors]-[0-9A-Za-z-]{10,}/, message: 'Slack token' },
  {
    id: 'github-token',
    severity: 'critical',
    kind: 'secret',
    pattern: /\b(?:gh[pousr]_[0-9A-Za-z]{30,}|github_pat_[0-9A-Za-z_]{30,})/,
    message: 'GitHub token',
  },
  {
    id: 'hardcoded-password',
    severity: 'high',
    kind: 'secret',
    pattern: /\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)\b["']?\s*[:=]\s*["'][^"'\s]{4,}["']/i,
    message: 'hard-coded credential',
  },
];

export const SEVERITY_ORDER: readonly AuditSeverity[] = ['critical', 'high', 'medium', 'low'];

/** Shows that a secret is there without its value: the first 4 characters of the match, then a mask. */
export function maskSecretMatch(line: string, pattern: RegExp): string {
  return line.replace(
    new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`),
    (match) => `${match.slice(0, 4)}…[masked]`,
  );
}
