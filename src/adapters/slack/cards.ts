/**
 * Block Kit for messages with buttons. Text goes into section blocks of at most 3,000 characters
 * (Slack's section limit), split at line boundaries; buttons into one actions block.
 */
import type { Button } from '../../commands/chat-surface.js';
import { fitButtonLabel } from '../../commands/button-label.js';

export const SLACK_SECTION_MAX_TEXT = 3000;
export const SLACK_BUTTON_MAX_TEXT = 75;

type Block = Record<string, unknown>;

export function blocksFor(text: string, buttons: Button[] | undefined): Block[] | undefined {
  if (!buttons || buttons.length === 0) return undefined;
  const sections = chunkLines(text || ' ', SLACK_SECTION_MAX_TEXT).map((chunk) => ({ type: 'section', text: { type: 'mrkdwn', text: chunk } }));
  const actions = {
    type: 'actions',
    elements: buttons.map((button) => ({
      type: 'button',
      action_id: button.actionId,
      value: button.value,
      text: { type: 'plain_text', text: fitButtonLabel(button.label, SLACK_BUTTON_MAX_TEXT), emoji: true },
      ...(button.style === 'success' || button.style === 'primary' ? { style: 'primary' } : button.style === 'danger' ? { style: 'danger' } : {}),
    })),
  };
  return [...sections, actions];
}

function chunkLines(text: string, max: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    const pieces = line.length > max ? (line.match(new RegExp(`.{1,${max}}`, 'gs')) ?? []) : [line];
    for (const piece of pieces) {
      if (current.length + piece.length + 1 > max) {
        chunks.push(current);
        current = piece;
      } else current = current ? `${current}\n${piece}` : piece;
    }
  }
  if (current) chunks.push(current);
  return chunks;
}
