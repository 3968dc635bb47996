/**
 * What "Ask another character" gives the character asked (issue 28): the original request, the
 * reply and the results of the tools used for it, read from the reply's stored run transcript
 * (masked when it was stored), so nobody retypes anything. Bounded: a long transcript is cut, each
 * part saying so, so the message always fits beside the thread's history.
 */
import type { ChatMessage } from '../../core/model/language-model.js';
import type { RunEvent } from '../../core/store/run-types.js';

/** What a second opinion reads of one reply: the request, the reply's text, its tool calls with their results. */
export interface ReplyTranscript {
  request?: { agent: string; text: string };
  reply: string;
  /** One entry per tool call: `- tool {arguments} → outcome:\n<result>`. */
  tools: string[];
}

/** Characters of the original request, of the reply, of each tool result, and of all tool results. */
export const SECOND_OPINION_LIMITS = { request: 6_000, reply: 8_000, toolOutput: 2_000, tools: 10_000 } as const;

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max)}\n… (cut: ${text.length - max} more characters)`);

/** The request a run answered: its first message, the person's (stored before the character spoke). */
export function requestOf(events: readonly RunEvent[]): { agent: string; text: string } | undefined {
  const first = events.find((event) => event.type === 'message');
  return first?.type === 'message' ? { agent: first.agent, text: first.text } : undefined;
}

/** The reply of `character` in a run: its text stretches, in order. */
export function replyOf(events: readonly RunEvent[], character: string): string {
  return events
    .flatMap((event) => (event.type === 'message' && event.agent === character ? [event.text] : []))
    .join('\n\n')
    .trim();
}

/** The transcript of a conversation turn's run (its event log). */
export function transcriptOfRun(events: readonly RunEvent[], character: string): ReplyTranscript {
  const request = requestOf(events);
  return { ...(request ? { request } : {}), reply: replyOf(events, character), tools: toolResultsOf(events) };
}

/** The transcript of one /goal step, from the messages of its turn (the step's prompt first); `mask` runs over every text. */
export function transcriptOfTurn(messages: readonly ChatMessage[], requester: string, mask: (text: string) => string): ReplyTranscript {
  const prompt = messages.find((message) => message.role === 'user');
  const calls = new Map(messages.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []) : [])).map((call) => [call.id, call]));
  const tools = messages.flatMap((message) => {
    if (message.role !== 'tool') return [];
    const call = calls.get(message.toolCallId);
    return [`- ${message.name}${call ? ` ${mask(call.arguments)}` : ''} →\n${cut(mask(message.content.trim()), SECOND_OPINION_LIMITS.toolOutput)}`];
  });
  const reply = messages.flatMap((message) => (message.role === 'assistant' && message.content.trim() ? [message.content.trim()] : [])).join('\n\n');
  return {
    ...(prompt ? { request: { agent: requester, text: cut(mask(prompt.content), SECOND_OPINION_LIMITS.request) } } : {}),
    reply: cut(mask(reply), SECOND_OPINION_LIMITS.reply),
    tools,
  };
}

/** Every tool call of the run with its arguments and the result the model read back. */
export function toolResultsOf(events: readonly RunEvent[]): string[] {
  const calls = new Map<string, { tool: string; arguments?: string }>();
  const lines: string[] = [];
  for (const event of events) {
    if (event.type === 'tool-call' && event.callId) calls.set(event.callId, { tool: event.tool, ...(event.arguments ? { arguments: event.arguments } : {}) });
    if (event.type !== 'tool-result') continue;
    const call = event.callId ? calls.get(event.callId) : undefined;
    const output = cut((event.output ?? event.display).trim(), SECOND_OPINION_LIMITS.toolOutput);
    lines.push(`- ${event.tool}${call?.arguments ? ` ${call.arguments}` : ''} → ${event.outcome}:\n${output}`);
  }
  return lines;
}

export interface SecondOpinionPromptInput {
  transcript: ReplyTranscript;
  /** The character who answered: its file name (as the transcript names it) and its name in chat. */
  answeredBy: { name: string; aiName: string };
  /** Who asked for the second opinion (a display name). */
  askedBy: string;
}

/** The message the character asked for a second opinion gets. */
export function secondOpinionPrompt(input: SecondOpinionPromptInput): string {
  const { answeredBy } = input;
  const { request, reply } = input.transcript;
  const tools = cut(input.transcript.tools.join('\n'), SECOND_OPINION_LIMITS.tools);
  return [
    `${input.askedBy} asks for your second opinion on ${answeredBy.aiName}'s reply in this thread. Here is what ${answeredBy.aiName} was asked, answered and found.`,
    '',
    `## The original request${request ? ` (from ${request.agent})` : ''}`,
    request ? cut(request.text, SECOND_OPINION_LIMITS.request) : '(not stored)',
    '',
    `## ${answeredBy.aiName}'s reply`,
    reply ? cut(reply, SECOND_OPINION_LIMITS.reply) : '(no text)',
    '',
    `## The tools ${answeredBy.aiName} used and what they returned`,
    tools || '(none)',
    '',
    `Give your own view of the request and of ${answeredBy.aiName}'s reply: where you agree, where you differ, and why. Use your tools if you need to check something.`,
  ].join('\n');
}
