/** How facts are written into a system prompt: a header and one line per fact, within a budget. */
import type { MemoryFact } from './memory-fact.js';

export const MEMORY_CONTEXT_HEADER =
  'Long-term memory (notes saved earlier by the team; verify before relying on them; when an answer follows a [decision], cite it as "decision <id>"):';
/** Facts longer than this appear by their summary. */
const INLINE_CONTENT_MAX_CHARS = 240;

/** One prompt line for `fact`. */
export function formatFactLine(fact: MemoryFact): string {
  const content = fact.content.replace(/\s+/g, ' ').trim();
  const text = content.length <= INLINE_CONTENT_MAX_CHARS ? content : fact.summary;
  return `- [${fact.kind}${fact.pinned ? ', pinned' : ''}] ${text} (id ${fact.id})`;
}

/**
 * The header and as many lines as fit in `budgetChars`, in the given order; '' when not even one
 * fact fits. Returns the facts that made it in, so only those count as used.
 */
export function formatMemoryContext(facts: readonly MemoryFact[], budgetChars: number): { text: string; included: MemoryFact[] } {
  let text = MEMORY_CONTEXT_HEADER;
  const included: MemoryFact[] = [];
  for (const fact of facts) {
    const line = `\n${formatFactLine(fact)}`;
    if (text.length + line.length > budgetChars) continue;
    text += line;
    included.push(fact);
  }
  return included.length === 0 ? { text: '', included } : { text, included };
}
