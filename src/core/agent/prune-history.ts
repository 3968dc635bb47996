import type { ChatMessage } from '../model/language-model.js';

/** The outcome of pruning: what to send, and how many messages were left out. */
export interface PrunedHistory {
  history: ChatMessage[];
  removedMessages: number;
}

export interface PruneHistoryOptions {
  system: ChatMessage;
  history: readonly ChatMessage[];
  budgetTokens: number;
  tokensForMessages(messages: readonly ChatMessage[]): number;
}

/**
 * Splits history into units that must be kept or dropped whole: an assistant message with tool
 * calls together with the tool results answering it; every other message alone.
 */
function toUnits(history: readonly ChatMessage[]): ChatMessage[][] {
  const units: ChatMessage[][] = [];
  for (let index = 0; index < history.length; index++) {
    const message = history[index]!;
    if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
      const ids = new Set(message.toolCalls.map((call) => call.id));
      const unit: ChatMessage[] = [message];
      while (index + 1 < history.length) {
        const next = history[index + 1]!;
        if (next.role !== 'tool' || !ids.has(next.toolCallId)) break;
        unit.push(next);
        index++;
      }
      units.push(unit);
    } else {
      units.push([message]);
    }
  }
  return units;
}

/**
 * Drops the oldest history until system prompt + history fit `budgetTokens`. Never drops the
 * system prompt, the last user message or anything after it, and never separates a tool result
 * from its call. Tool results with no call before them are dropped first: they are invalid anyway.
 */
export function pruneHistory(options: PruneHistoryOptions): PrunedHistory {
  const { system, history, budgetTokens, tokensForMessages } = options;
  let lastUserIndex = -1;
  for (let index = history.length - 1; index >= 0; index--) {
    if (history[index]!.role === 'user') {
      lastUserIndex = index;
      break;
    }
  }
  const protectedFrom = lastUserIndex === -1 ? history.length : lastUserIndex;
  const units = toUnits(history.slice(0, protectedFrom));
  const tail = history.slice(protectedFrom);

  let removedMessages = 0;
  const kept = units.filter((unit) => {
    const orphan = unit[0]!.role === 'tool';
    if (orphan) removedMessages += unit.length;
    return !orphan;
  });

  const unitTokens = kept.map((unit) => tokensForMessages(unit));
  let total = tokensForMessages([system, ...tail]) + unitTokens.reduce((sum, tokens) => sum + tokens, 0);
  let dropCount = 0;
  while (total > budgetTokens && dropCount < kept.length) {
    total -= unitTokens[dropCount]!;
    removedMessages += kept[dropCount]!.length;
    dropCount++;
  }
  return { history: [...kept.slice(dropCount).flat(), ...tail], removedMessages };
}
