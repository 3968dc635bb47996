import type { ChatMessage, ImagePart } from '../model/language-model.js';
import type { Character, Role, Trait } from '../data/types.js';
import { untrustedPromptSection } from '../safety/untrusted-content.js';

/** Everything the system prompt is made of, already resolved. */
export interface SystemPromptParts {
  character: Character;
  role: Role;
  trait?: Trait;
  /** Relevant long-term memory, already formatted; '' for none. */
  memory: string;
  extraSystemPrompt?: string;
  /** The text tool catalogue, for models without native tool calling. */
  toolCatalog?: string;
  /** The section naming the role's tools that are not offered yet but load on a direct call. */
  onDemandTools?: string;
  /** What untrusted text the conversation carries (issue 41): when any, a section says how to read it. */
  untrusted?: readonly string[];
}

/** The system prompt: identity, role, style, memory, extra instructions, then (text mode) the tools. */
export function buildSystemPrompt(parts: SystemPromptParts): string {
  const { character, role, trait, memory, extraSystemPrompt, toolCatalog, onDemandTools, untrusted } = parts;
  const sections = [
    `You are ${character.displayName} (people address you as @${character.aiName}). ${character.description}`.trim(),
    `## Your role: ${role.displayName}\n${role.systemPrompt}`,
  ];
  if (trait && trait.stylePrompt.trim() !== '') sections.push(`## Your style\n${trait.stylePrompt}`);
  if (memory.trim() !== '') sections.push(`## Relevant memory\n${memory}`);
  if (extraSystemPrompt && extraSystemPrompt.trim() !== '') sections.push(extraSystemPrompt);
  if (toolCatalog) sections.push(toolCatalog);
  if (onDemandTools) sections.push(onDemandTools);
  if (untrusted && untrusted.length > 0) sections.push(untrustedPromptSection(untrusted));
  return sections.join('\n\n');
}

/** Chat APIs accept only these characters in a message's `name`, at most 64 of them. */
const NAME_MAX_LENGTH = 64;

/** `userName` made acceptable as a message name; undefined when nothing usable is left. */
export function toMessageName(userName: string | undefined): string | undefined {
  if (userName === undefined) return undefined;
  const cleaned = userName
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, NAME_MAX_LENGTH);
  return cleaned === '' ? undefined : cleaned;
}

/** The user's message, carrying their name when known. */
export function buildUserMessage(content: string, userName?: string, images?: ImagePart[]): ChatMessage {
  const name = toMessageName(userName);
  return { role: 'user', content, ...(name === undefined ? {} : { name }), ...(images && images.length > 0 ? { images } : {}) };
}
