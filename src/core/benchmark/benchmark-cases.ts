/**
 * The fixed quality suite of `tsuka benchmark`: what a chat-ops agent needs from its model — the
 * right tool with valid arguments, no call when none is needed, two calls in one turn, JSON-only
 * answers and following a format instruction. Each case is one model step, checked by code; the
 * tools are described to the model but never run. Each case carries a reference answer that passes.
 */
import type { ChatMessage, ToolDefinition } from '../model/language-model.js';

export type BenchmarkCategory = 'tool-choice' | 'no-tool' | 'two-calls' | 'json-only' | 'format';

/** What the model answered in one step. */
export interface BenchmarkAnswer {
  text: string;
  toolCalls: { name: string; input: unknown }[];
}

export interface BenchmarkCase {
  id: string;
  category: BenchmarkCategory;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** Undefined when the answer passes; else why it fails. */
  check(answer: BenchmarkAnswer): string | undefined;
  /** An answer that passes (documentation, and the self-test of the suite). */
  reference: BenchmarkAnswer;
}

const SYSTEM: ChatMessage = { role: 'system', content: 'You are a helpful assistant in a team chat. Use a tool only when it is needed to answer.' };
const object = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required, additionalProperties: false });

const TOOLS: Record<string, ToolDefinition> = {
  read_file: {
    name: 'read_file',
    description: 'Read a text file of the workspace.',
    parameters: object({ path: { type: 'string', description: 'Path relative to the workspace.' } }, ['path']),
  },
  list_dir: { name: 'list_dir', description: 'List the entries of a folder of the workspace.', parameters: object({ path: { type: 'string' } }, ['path']) },
  web_search: { name: 'web_search', description: 'Search the web.', parameters: object({ query: { type: 'string' } }, ['query']) },
  get_weather: {
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: object({ city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, ['city', 'unit']),
  },
  create_issue: {
    name: 'create_issue',
    description: 'Create an issue in the tracker.',
    parameters: object({ title: { type: 'string' }, priority: { type: 'integer', minimum: 1, maximum: 4 } }, ['title', 'priority']),
  },
};
const ALL_TOOLS = Object.values(TOOLS);

const user = (content: string): ChatMessage[] => [SYSTEM, { role: 'user', content }];
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const normalise = (value: unknown): string =>
  String(value ?? '')
    .trim()
    .replace(/^\.\//, '')
    .toLowerCase();

function oneCall(answer: BenchmarkAnswer, name: string, check: (input: Record<string, unknown>) => string | undefined): string | undefined {
  if (answer.toolCalls.length === 0) return `no tool call (expected ${name})`;
  if (answer.toolCalls.length > 1) return `${answer.toolCalls.length} tool calls (expected one ${name})`;
  const call = answer.toolCalls[0]!;
  if (call.name !== name) return `called ${call.name} (expected ${name})`;
  return check(record(call.input));
}

function callsSet(answer: BenchmarkAnswer, name: string, key: string, expected: string[]): string | undefined {
  const calls = answer.toolCalls.filter((call) => call.name === name);
  if (calls.length !== expected.length || answer.toolCalls.length !== expected.length)
    return `${answer.toolCalls.length} tool calls (expected ${expected.length} × ${name})`;
  const got = calls.map((call) => normalise(record(call.input)[key])).sort();
  const want = expected.map((value) => value.toLowerCase()).sort();
  return got.every((value, index) => value === want[index]) ? undefined : `${key} values ${got.join(', ')} (expected ${want.join(', ')})`;
}

function noCall(answer: BenchmarkAnswer, textCheck?: (text: string) => string | undefined): string | undefined {
  if (answer.toolCalls.length > 0) return `called ${answer.toolCalls.map((call) => call.name).join(', ')} when no tool was needed`;
  if (answer.text.trim() === '') return 'no answer';
  return textCheck?.(answer.text);
}

function jsonOnly(text: string, check: (value: unknown) => string | undefined): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text.trim());
  } catch {
    return 'the answer is not JSON only';
  }
  return check(value);
}

const call = (name: string, input: Record<string, unknown>) => ({ name, input });

export const BENCHMARK_CASES: readonly BenchmarkCase[] = [
  {
    id: 'read-file',
    category: 'tool-choice',
    messages: user('Show me what is in src/app.ts.'),
    tools: ALL_TOOLS,
    check: (answer) => oneCall(answer, 'read_file', (input) => (normalise(input.path) === 'src/app.ts' ? undefined : `path ${String(input.path)}`)),
    reference: { text: '', toolCalls: [call('read_file', { path: 'src/app.ts' })] },
  },
  {
    id: 'list-folder',
    category: 'tool-choice',
    messages: user('Which files are in the docs folder?'),
    tools: ALL_TOOLS,
    check: (answer) => oneCall(answer, 'list_dir', (input) => (normalise(input.path).replace(/\/$/, '') === 'docs' ? undefined : `path ${String(input.path)}`)),
    reference: { text: '', toolCalls: [call('list_dir', { path: 'docs' })] },
  },
  {
    id: 'enum-argument',
    category: 'tool-choice',
    messages: user('How warm is it in Lisbon right now, in degrees Celsius?'),
    tools: ALL_TOOLS,
    check: (answer) =>
      oneCall(answer, 'get_weather', (input) =>
        normalise(input.city) === 'lisbon' && input.unit === 'celsius' ? undefined : `arguments ${JSON.stringify(input)}`,
      ),
    reference: { text: '', toolCalls: [call('get_weather', { city: 'Lisbon', unit: 'celsius' })] },
  },
  {
    id: 'integer-argument',
    category: 'tool-choice',
    messages: user('Open an issue titled "Login fails on Safari" with priority 2.'),
    tools: ALL_TOOLS,
    check: (answer) =>
      oneCall(answer, 'create_issue', (input) =>
        normalise(input.title) === 'login fails on safari' && input.priority === 2 ? undefined : `arguments ${JSON.stringify(input)}`,
      ),
    reference: { text: '', toolCalls: [call('create_issue', { title: 'Login fails on Safari', priority: 2 })] },
  },
  {
    id: 'web-search',
    category: 'tool-choice',
    messages: user('Look up on the web which Node.js version is the current LTS.'),
    tools: ALL_TOOLS,
    check: (answer) => oneCall(answer, 'web_search', (input) => (/node/i.test(String(input.query ?? '')) ? undefined : `query ${String(input.query)}`)),
    reference: { text: '', toolCalls: [call('web_search', { query: 'Node.js current LTS version' })] },
  },
  {
    id: 'greeting',
    category: 'no-tool',
    messages: user('Good morning! Thanks for the help yesterday.'),
    tools: ALL_TOOLS,
    check: (answer) => noCall(answer),
    reference: { text: 'Good morning! Glad it helped.', toolCalls: [] },
  },
  {
    id: 'arithmetic',
    category: 'no-tool',
    messages: user('What is 12 times 12?'),
    tools: ALL_TOOLS,
    check: (answer) => noCall(answer, (text) => (text.includes('144') ? undefined : 'the answer does not say 144')),
    reference: { text: '12 × 12 = 144.', toolCalls: [] },
  },
  {
    id: 'two-files',
    category: 'two-calls',
    messages: user('Read both README.md and package.json, then tell me how to start the project.'),
    tools: ALL_TOOLS,
    check: (answer) => callsSet(answer, 'read_file', 'path', ['README.md', 'package.json']),
    reference: { text: '', toolCalls: [call('read_file', { path: 'README.md' }), call('read_file', { path: 'package.json' })] },
  },
  {
    id: 'two-cities',
    category: 'two-calls',
    messages: user('Compare the weather in Paris and in Tokyo, in celsius.'),
    tools: ALL_TOOLS,
    check: (answer) => callsSet(answer, 'get_weather', 'city', ['paris', 'tokyo']),
    reference: { text: '', toolCalls: [call('get_weather', { city: 'Paris', unit: 'celsius' }), call('get_weather', { city: 'Tokyo', unit: 'celsius' })] },
  },
  {
    id: 'json-object',
    category: 'json-only',
    messages: user('Return only a JSON object with the keys "name" (string) and "age" (number) for Ada, who is 36. No other text, no code fence.'),
    check: (answer) =>
      noCall(answer, (text) =>
        jsonOnly(text, (value) => (record(value).name === 'Ada' && record(value).age === 36 ? undefined : `wrong JSON ${JSON.stringify(value)}`)),
      ),
    reference: { text: '{"name": "Ada", "age": 36}', toolCalls: [] },
  },
  {
    id: 'json-array',
    category: 'json-only',
    messages: user('List the three primary colours of light as a JSON array of lowercase strings. Answer with the JSON only.'),
    check: (answer) =>
      noCall(answer, (text) =>
        jsonOnly(text, (value) =>
          Array.isArray(value) && [...value].map(String).sort().join(',') === 'blue,green,red' ? undefined : `wrong JSON ${JSON.stringify(value)}`,
        ),
      ),
    reference: { text: '["red", "green", "blue"]', toolCalls: [] },
  },
  {
    id: 'uppercase-word',
    category: 'format',
    messages: user('Reply with the word "ready" in uppercase letters and nothing else.'),
    check: (answer) => noCall(answer, (text) => (/^READY\.?$/.test(text.trim()) ? undefined : `answered ${JSON.stringify(text.trim().slice(0, 40))}`)),
    reference: { text: 'READY', toolCalls: [] },
  },
  {
    id: 'three-bullets',
    category: 'format',
    messages: user('Name three fruits as exactly three lines, each starting with "- ". No other text.'),
    check: (answer) =>
      noCall(answer, (text) => {
        const lines = text
          .trim()
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean);
        return lines.length === 3 && lines.every((line) => line.startsWith('- ')) ? undefined : `${lines.length} lines, not three "- " bullets`;
      }),
    reference: { text: '- apple\n- pear\n- plum', toolCalls: [] },
  },
  {
    id: 'answer-prefix',
    category: 'format',
    messages: user('What is the capital of France? Start your answer with "ANSWER:" and use one line.'),
    check: (answer) =>
      noCall(answer, (text) =>
        text.trim().startsWith('ANSWER:') && /paris/i.test(text) && !text.trim().includes('\n') ? undefined : 'not one line starting with ANSWER: naming Paris',
      ),
    reference: { text: 'ANSWER: Paris', toolCalls: [] },
  },
];

/** Categories that measure tool calling, for the tool part of the score. */
export const TOOL_CATEGORIES: ReadonlySet<BenchmarkCategory> = new Set(['tool-choice', 'no-tool', 'two-calls']);
