/** How the agent loop gets relevant long-term memory into a prompt (filled by the memory store). */
export interface MemoryContextSource {
  /** Facts relevant to `query`, formatted for the system prompt, at most `budgetChars` characters; '' when none. */
  contextFor(query: string, options: { scope: string; budgetChars: number }): Promise<string>;
}
