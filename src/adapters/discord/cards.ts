/**
 * Buttons as message components: action rows of at most five buttons, `custom_id` =
 * `actionId:value` (≤ 100 characters, Discord's limit), labels ≤ 80. Styles: Approve = Success,
 * Approve for this run = Primary, Deny = Danger, Stop = Secondary. Menus are string selects, one
 * row each, their options' values the choices.
 * https://discord.com/developers/docs/components/reference#button ·
 * https://discord.com/developers/docs/components/reference#string-select
 */
import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIComponentInMessageActionRow,
  type APIStringSelectComponent,
} from 'discord.js';
import { isMenu, MENU_MAX_OPTIONS, type Button, type ButtonStyle as SurfaceButtonStyle } from '../../commands/chat-surface.js';
import { fitButtonLabel } from '../../commands/reply/button-label.js';

export const DISCORD_MAX_CUSTOM_ID_LENGTH = 100;
export const DISCORD_MAX_BUTTON_LABEL_LENGTH = 80;
export const DISCORD_MAX_BUTTONS_PER_ROW = 5;
export const DISCORD_MAX_ROWS = 5;
/** A select's placeholder and option labels: at most 150 and 100 characters. */
export const DISCORD_MAX_PLACEHOLDER_LENGTH = 150;
export const DISCORD_MAX_OPTION_LABEL_LENGTH = 100;

const STYLES: Record<SurfaceButtonStyle, ButtonStyle.Primary | ButtonStyle.Secondary | ButtonStyle.Success | ButtonStyle.Danger> = {
  primary: ButtonStyle.Primary,
  secondary: ButtonStyle.Secondary,
  success: ButtonStyle.Success,
  danger: ButtonStyle.Danger,
};

/** `actionId:value`; throws rather than send an id Discord would refuse. */
export function customIdFor(button: Pick<Button, 'actionId' | 'value'>): string {
  const id = `${button.actionId}:${button.value}`;
  if (button.actionId.includes(':') || id.length > DISCORD_MAX_CUSTOM_ID_LENGTH) {
    throw new Error(
      `button custom_id "${id.slice(0, 40)}…" must be actionId:value with no ':' in the action id and at most ${DISCORD_MAX_CUSTOM_ID_LENGTH} characters`,
    );
  }
  return id;
}

/** Splits a `custom_id` back into action id and value (the value may contain ':'). */
export function parseCustomId(customId: string): { actionId: string; value: string } {
  const at = customId.indexOf(':');
  return at < 0 ? { actionId: customId, value: '' } : { actionId: customId.slice(0, at), value: customId.slice(at + 1) };
}

/** Action rows for `buttons`; an empty list (no buttons, or buttons removed) gives no rows. Menus take a row each, after the buttons. */
export function componentsFor(buttons: Button[] | undefined): APIActionRowComponent<APIComponentInMessageActionRow>[] {
  const menus = (buttons ?? []).filter(isMenu).slice(0, DISCORD_MAX_ROWS);
  const plain = (buttons ?? []).filter((button) => !isMenu(button));
  const elements: APIButtonComponentWithCustomId[] = plain.slice(0, DISCORD_MAX_BUTTONS_PER_ROW * (DISCORD_MAX_ROWS - menus.length)).map((button) => ({
    type: ComponentType.Button,
    style: STYLES[button.style],
    label: fitButtonLabel(button.label, DISCORD_MAX_BUTTON_LABEL_LENGTH),
    custom_id: customIdFor(button),
  }));
  const rows: APIActionRowComponent<APIComponentInMessageActionRow>[] = [];
  for (let index = 0; index < elements.length; index += DISCORD_MAX_BUTTONS_PER_ROW) {
    rows.push({ type: ComponentType.ActionRow, components: elements.slice(index, index + DISCORD_MAX_BUTTONS_PER_ROW) });
  }
  for (const menu of menus) rows.push({ type: ComponentType.ActionRow, components: [selectFor(menu)] });
  return rows;
}

/** A menu as a string select: `custom_id` as a button's, each option's value its choice. */
function selectFor(menu: Button): APIStringSelectComponent {
  return {
    type: ComponentType.StringSelect,
    custom_id: customIdFor(menu),
    placeholder: fitButtonLabel(menu.label, DISCORD_MAX_PLACEHOLDER_LENGTH),
    options: (menu.options ?? []).slice(0, MENU_MAX_OPTIONS).map((option) => ({
      label: fitButtonLabel(option.label, DISCORD_MAX_OPTION_LABEL_LENGTH),
      value: option.choice,
    })),
  };
}
