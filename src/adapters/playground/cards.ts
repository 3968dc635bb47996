/**
 * What the page draws for a message's buttons and its author: plain data, never markup. Buttons
 * keep the port's action id and value (routed back by POST /api/actions); avatars given as Slack
 * shortcodes (`:wrench:`) become the emoji itself, https URLs stay images, anything else an initial;
 * a character's generated picture (`/avatars/<name>.png`, from this server) is shown when given.
 */
import { isMenu, MENU_MAX_OPTIONS, type Button, type Identity } from '../../commands/chat-surface.js';
import { fitButtonLabel } from '../../commands/reply/button-label.js';
import { avatarPath, BOT_PICTURE, PERSON_PICTURE } from '../../commands/reply/avatars.js';

export const PLAYGROUND_BUTTON_MAX_LABEL = 75;

export interface ButtonView {
  actionId: string;
  label: string;
  style: Button['style'];
  value: string;
}

/** A menu (a button with options): its placeholder, and the options the page offers in a `<select>`. */
export interface MenuView {
  actionId: string;
  label: string;
  value: string;
  options: { label: string; choice: string }[];
}

export interface AuthorView {
  name: string;
  /** An emoji to show as the avatar, or… */
  emoji?: string;
  /** …an https image. */
  imageUrl?: string;
  kind: 'bot' | 'character' | 'user';
}

// Pictures, not emoji: an emoji is an empty box on a system without an emoji font (issue 24).
export const BOT_AUTHOR: AuthorView = { name: 'TSUKA', emoji: '🤖', imageUrl: avatarPath(BOT_PICTURE.name), kind: 'bot' };
export const USER_AUTHOR: AuthorView = { name: 'you', emoji: '🧑', imageUrl: avatarPath(PERSON_PICTURE.name), kind: 'user' };

/** The shortcodes the shipped characters use, plus a few common ones. */
const EMOJI: Record<string, string> = {
  wrench: '🔧',
  hammer_and_wrench: '🛠️',
  memo: '📝',
  bar_chart: '📊',
  stethoscope: '🩺',
  test_tube: '🧪',
  compass: '🧭',
  rocket: '🚀',
  telescope: '🔭',
  mag: '🔍',
  globe_with_meridians: '🌐',
  building_construction: '🏗️',
  shield: '🛡️',
  robot_face: '🤖',
  robot: '🤖',
  brain: '🧠',
  books: '📚',
  gear: '⚙️',
  lock: '🔒',
  bug: '🐛',
  sparkles: '✨',
  star: '⭐',
  zap: '⚡',
  microscope: '🔬',
  crystal_ball: '🔮',
  owl: '🦉',
  fox_face: '🦊',
  eyes: '👀',
};

export function buttonViews(buttons: Button[] | undefined): ButtonView[] {
  return (buttons ?? [])
    .filter((button) => !isMenu(button))
    .map((button) => ({
      actionId: button.actionId,
      label: fitButtonLabel(button.label, PLAYGROUND_BUTTON_MAX_LABEL),
      style: button.style,
      value: button.value,
    }));
}

/** The menus among `buttons`, as the page draws them. */
export function menuViews(buttons: Button[] | undefined): MenuView[] {
  return (buttons ?? []).filter(isMenu).map((menu) => ({
    actionId: menu.actionId,
    label: fitButtonLabel(menu.label, PLAYGROUND_BUTTON_MAX_LABEL),
    value: menu.value,
    options: (menu.options ?? [])
      .slice(0, MENU_MAX_OPTIONS)
      .map((option) => ({ label: fitButtonLabel(option.label, PLAYGROUND_BUTTON_MAX_LABEL), choice: option.choice })),
  }));
}

export function authorView(identity: Identity | undefined): AuthorView {
  if (!identity) return BOT_AUTHOR;
  const avatar = identity.avatar?.trim() ?? '';
  const shortcode = /^:([\w+-]+):$/.exec(avatar);
  // The character's generated picture, served by this same server: it shows where no emoji font is installed.
  if (!/^https:\/\//.test(avatar) && identity.avatarPath?.startsWith('/avatars/'))
    return { name: identity.name, imageUrl: identity.avatarPath, ...emojiOf(identity), kind: 'character' };
  if (shortcode) return { name: identity.name, emoji: EMOJI[shortcode[1]!] ?? initial(identity.name), kind: 'character' };
  if (/^https:\/\/\S+$/.test(avatar)) return { name: identity.name, imageUrl: avatar, kind: 'character' };
  if (avatar && !/[\w\s<>"'&]/.test(avatar) && [...avatar].length <= 4) return { name: identity.name, emoji: avatar, kind: 'character' };
  return { name: identity.name, emoji: initial(identity.name), kind: 'character' };
}

const initial = (name: string): string => (name.trim()[0] ?? '?').toUpperCase();

/** The emoji kept beside a picture (the page's fallback). */
function emojiOf(identity: Identity): { emoji?: string } {
  const shortcode = /^:([\w+-]+):$/.exec(identity.avatar?.trim() ?? '');
  const emoji = shortcode ? EMOJI[shortcode[1]!] : undefined;
  return emoji ? { emoji } : {};
}
