/**
 * Block Kit for messages with buttons. Text goes into section blocks of at most 3,000 characters
 * (Slack's section limit), split at line boundaries; buttons into one actions block, menus after
 * them as `static_select` elements whose option values carry `<value>|<choice>` (an element has
 * no value of its own). https://docs.slack.dev/reference/block-kit/block-elements/select-menu-element
 */
import { isMenu, MENU_MAX_OPTIONS, type Button } from '../../commands/chat-surface.js';
import { fitButtonLabel } from '../../commands/reply/button-label.js';

export const SLACK_SECTION_MAX_TEXT = 3000;
export const SLACK_BUTTON_MAX_TEXT = 75;
/** Longest option text and placeholder of a select (Slack: 75 and 150). */
export const SLACK_OPTION_MAX_TEXT = 75;
export const SLACK_PLACEHOLDER_MAX_TEXT = 150;
const CHOICE_SEPARATOR = '|';

type Block = Record<string, unknown>;

export function blocksFor(text: string, buttons: Button[] | undefined): Block[] | undefined {
  if (!buttons || buttons.length === 0) return undefined;
  const sections = chunkLines(text || ' ', SLACK_SECTION_MAX_TEXT).map((chunk) => ({ type: 'section', text: { type: 'mrkdwn', text: chunk } }));
  const plain = buttons.filter((button) => !isMenu(button));
  const actions = {
    type: 'actions',
    elements: [
      ...plain.map((button) => ({
        type: 'button',
        action_id: button.actionId,
        value: button.value,
        text: { type: 'plain_text', text: fitButtonLabel(button.label, SLACK_BUTTON_MAX_TEXT), emoji: true },
        ...(button.style === 'success' || button.style === 'primary' ? { style: 'primary' } : button.style === 'danger' ? { style: 'danger' } : {}),
      })),
      ...buttons.filter(isMenu).map(selectFor),
    ],
  };
  return [...sections, actions];
}

/** A menu as a `static_select`. */
function selectFor(menu: Button): Block {
  return {
    type: 'static_select',
    action_id: menu.actionId,
    placeholder: { type: 'plain_text', text: fitButtonLabel(menu.label, SLACK_PLACEHOLDER_MAX_TEXT), emoji: true },
    options: (menu.options ?? []).slice(0, MENU_MAX_OPTIONS).map((option) => ({
      text: { type: 'plain_text', text: fitButtonLabel(option.label, SLACK_OPTION_MAX_TEXT), emoji: true },
      value: `${menu.value}${CHOICE_SEPARATOR}${option.choice}`,
    })),
  };
}

/** The value and the choice of a picked option (`<value>|<choice>`). */
export function parseOptionValue(optionValue: string): { value: string; choice: string } {
  const at = optionValue.indexOf(CHOICE_SEPARATOR);
  return at < 0 ? { value: optionValue, choice: '' } : { value: optionValue.slice(0, at), choice: optionValue.slice(at + 1) };
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
