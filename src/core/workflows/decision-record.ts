/**
 * A decision record (ADR) for an adopted /call verdict: `docs/decisions/NNNN-title.md`, numbered
 * after the records already in the folder, in the usual sections (context, options, decision,
 * consequences as the participants saw them, dissent), citing the run and the memory fact.
 */
import type { CallVerdict } from './call-verdict.js';

/** Where records go, relative to the channel's workspace. */
export const DECISIONS_FOLDER = 'docs/decisions';
const SLUG_MAX_CHARS = 60;
const NUMBERED = /^(\d{4})-.*\.md$/;

/** `Cache sessions in Redis, with a TTL!` → `cache-sessions-in-redis-with-a-ttl`. */
export function decisionSlug(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX_CHARS)
    .replace(/-+$/g, '');
  return slug === '' ? 'decision' : slug;
}

/** The number after the highest `NNNN-*.md` among `fileNames` (1 for an empty folder). */
export function nextDecisionNumber(fileNames: readonly string[]): number {
  let highest = 0;
  for (const name of fileNames) {
    const match = NUMBERED.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest + 1;
}

export function decisionFileName(number: number, title: string): string {
  return `${String(number).padStart(4, '0')}-${decisionSlug(title)}.md`;
}

export interface DecisionRecordInput {
  number: number;
  verdict: CallVerdict;
  runId: string;
  /** The memory fact that holds the decision. */
  factId: string;
  /** Who adopted it, as chat shows them (`<@U1>`, a name). */
  adoptedBy: string;
  /** When it was adopted (ms since the epoch). */
  at: number;
}

export function decisionRecordMarkdown(input: DecisionRecordInput): string {
  const { verdict } = input;
  const voteOf = (position: CallVerdict['positions'][number]) =>
    position.vote ? `${position.vote}${position.reason ? ` — ${position.reason}` : ''}` : 'no vote';
  return [
    `# ${String(input.number).padStart(4, '0')}. ${verdict.decision}`,
    '',
    `- Status: accepted`,
    `- Date: ${new Date(input.at).toISOString().slice(0, 10)}`,
    `- Decided in: /call run \`${input.runId}\`, moderated by ${verdict.moderator}, adopted by ${input.adoptedBy}`,
    `- Memory: decision \`${input.factId}\``,
    '',
    '## Context',
    '',
    verdict.topic,
    '',
    '## Options considered',
    '',
    ...(verdict.options.length > 0 ? verdict.options.map((option) => `- ${option}`) : ['- (the moderator named none)']),
    '',
    '## Decision',
    '',
    verdict.decision,
    '',
    '## Positions and votes',
    '',
    ...verdict.positions.map((position) => `- ${position.aiName}: ${position.position} (${voteOf(position)})`),
    '',
    '## Synthesis',
    '',
    verdict.synthesis || '(none)',
    '',
    '## Dissent',
    '',
    ...(verdict.dissent.length > 0 ? verdict.dissent.map((position) => `- ${position.aiName}: ${voteOf(position)}`) : ['None.']),
    '',
  ].join('\n');
}
