/** The benchmark's table, as plain text in a code block (the CLI prints it; chat shows it as is). */
import type { ModelProfile } from './model-profile.js';

const figure = (value: number | undefined, unit: string): string => (value === undefined ? 'n/a' : `${value} ${unit}`);

export function formatProfileTable(profile: ModelProfile): string {
  const rows: [string, string][] = [
    ['model', `${profile.modelId} (${profile.providerId})`],
    ['measured', `${profile.measuredAt.slice(0, 16).replace('T', ' ')} UTC`],
    ['time to first token', figure(profile.ttftMs, 'ms')],
    ['generation', figure(profile.generationTokensPerSecond, 'tok/s')],
    ['prompt processing', figure(profile.promptTokensPerSecond, 'tok/s')],
    [
      'quality',
      `${profile.quality.passed}/${profile.quality.total} (${Math.round(profile.quality.score * 100)}%; tool calling ${Math.round(profile.quality.toolScore * 100)}%)`,
    ],
    ['tier', profile.tier],
    ...(profile.toolCallForm
      ? [['tool calls', profile.toolCallForm === 'native' ? 'native' : `written as text (${profile.toolCallForm})`] as [string, string]]
      : []),
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const table = rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
  const failures = profile.cases.filter((result) => !result.passed).map((result) => `✗ ${result.id} (${result.category}): ${result.reason ?? 'failed'}`);
  return ['```', table, ...(failures.length > 0 ? ['', ...failures] : []), '```'].join('\n');
}

/** One line for `doctor` and `/tsuka status`. */
export function formatProfileLine(profile: ModelProfile): string {
  return `measured ${profile.measuredAt.slice(0, 10)}: tier ${profile.tier}, quality ${profile.quality.passed}/${profile.quality.total}, TTFT ${figure(profile.ttftMs, 'ms')}, ${figure(profile.generationTokensPerSecond, 'tok/s')} generation, ${figure(profile.promptTokensPerSecond, 'tok/s')} prompt`;
}
