/**
 * The pages a finished tool call read, as sources of its task card: the page `browse_url` opened,
 * the results `web_search` listed (its output is `1. Title\n   https://…`). Each with a text (Slack
 * refuses a source without one). Other tools have none.
 */
import type { TaskUpdate } from '../chat-surface.js';

const MAX_SOURCES = 5;

export function taskSources(toolName: string, argumentsJson: string, output: string): TaskUpdate['sources'] {
  if (toolName === 'browse_url') {
    const url = urlArgument(argumentsJson);
    return url ? [{ url, text: hostAndPath(url) }] : undefined;
  }
  if (toolName === 'web_search') {
    const sources = [...output.matchAll(/^\s*\d+\.\s+(.+)\n\s+(https?:\/\/\S+)/gm)]
      .slice(0, MAX_SOURCES)
      .map(([, title, url]) => ({ url: url!, text: title!.trim() || hostAndPath(url!) }));
    return sources.length > 0 ? sources : undefined;
  }
  return undefined;
}

function urlArgument(argumentsJson: string): string | undefined {
  try {
    const url = (JSON.parse(argumentsJson) as { url?: unknown }).url;
    return typeof url === 'string' && /^https?:\/\/\S+$/.test(url) ? url : undefined;
  } catch (error) {
    // Arguments that do not parse were refused before the tool ran: there is no page to name.
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

function hostAndPath(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch (error) {
    if (error instanceof TypeError) return url;
    throw error;
  }
}
