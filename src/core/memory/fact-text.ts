/**
 * A fact's text as it is stored: masked first (known secret values), then trimmed, checked and
 * shortened — so no cut can leave part of a secret, and no secret reaches the store or its index.
 */
import { TsukaError } from '../errors.js';
import { deriveSummary, shortenToSummary } from './fact-summary.js';

/** Longest content a fact may hold. */
export const MEMORY_CONTENT_MAX_CHARS = 4_000;

/** Invalid input to the memory store (empty content, content too long). */
export class MemoryInputError extends TsukaError {
  constructor(message: string) {
    super('memory_input_invalid', message);
  }
}

export interface FactText {
  /** The content to store; `MemoryInputError` when empty or too long. */
  content(text: string): string;
  /** The summary to store: `text` shortened, else derived from the (stored) content. */
  summary(text: string | undefined, content: string): string;
  /** Tags lower-cased, trimmed, without repeats. */
  tags(tags: readonly string[] | undefined): string[];
  /** Any other stored text (a record from before masking, written again). */
  mask(text: string): string;
}

export function createFactText(mask: (text: string) => string = (text) => text): FactText {
  return {
    content(text) {
      const trimmed = mask(text).trim();
      if (!trimmed) throw new MemoryInputError('A memory needs some content.');
      if (trimmed.length > MEMORY_CONTENT_MAX_CHARS) {
        throw new MemoryInputError(`A memory holds at most ${MEMORY_CONTENT_MAX_CHARS} characters; save a shorter note.`);
      }
      return trimmed;
    },
    summary: (text, content) => (text?.trim() ? shortenToSummary(mask(text)) : '') || deriveSummary(content),
    tags: (tags) => [...new Set((tags ?? []).map((tag) => mask(tag).trim().toLowerCase()).filter(Boolean))],
    mask,
  };
}
