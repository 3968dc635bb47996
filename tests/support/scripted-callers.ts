/**
 * Who is asking, read from a model request: the routing a scripted model needs when calls of a
 * /goal run interleave (parallel steps), shared by the unit tests and the end-to-end ones.
 */

/** The shape of a chat request's messages, as both the scripted model and the fake servers see it. */
export interface ScriptedRequestMessages {
  messages: { role: string; content: string }[];
}

/** The request's system prompt, or ''. */
export function systemOf(request: ScriptedRequestMessages): string {
  return request.messages.find((message) => message.role === 'system')?.content ?? '';
}

/** The request's last user message, or ''. */
export function lastUserOf(request: ScriptedRequestMessages): string {
  return [...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '';
}

/** `plan`, `condense`, `step:<n>`, `rework:<n>` (a step run again), `review:<n>`, `merge:<path>` (a conflict's merge), else `unknown`. */
export function callerOf(request: { messages: readonly unknown[] }): string {
  const messages = request.messages as { role: string; content: string }[];
  const system = systemOf({ messages });
  if (system.includes('You are the planner')) return 'plan';
  if (system.includes('You condense the output')) return 'condense';
  const user = lastUserOf({ messages });
  const review = /Review step (\d+),/.exec(user);
  if (review) return `review:${review[1]}`;
  const merge = /Parallel steps changed (\S+) in different ways/.exec(user);
  if (merge) return `merge:${merge[1]}`;
  const step = /Step (\d+) of \d+ is yours/.exec(user);
  if (step) return `${user.includes('sent your previous attempt back for rework') ? 'rework' : 'step'}:${step[1]}`;
  return 'unknown';
}
