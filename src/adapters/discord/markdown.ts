/**
 * The command layer writes CommonMark, which Discord renders natively, so text passes through
 * as it is. What Discord lacks is Slack's `:shortcode:` avatars: they become unicode emoji for
 * the webhook username (`🔧 Geordi`) and for the bold name prefix of the fallback.
 */
import { tablesToCodeBlocks } from '../../commands/reply/markdown-tables.js';

/** Shortcodes the shipped characters use, plus common ones a created character may pick. */
const SHORTCODE_EMOJI: Record<string, string> = {
  bar_chart: '📊',
  brain: '🧠',
  bug: '🐛',
  building_construction: '🏗️',
  clipboard: '📋',
  compass: '🧭',
  computer: '💻',
  crystal_ball: '🔮',
  gear: '⚙️',
  globe_with_meridians: '🌐',
  hammer: '🔨',
  hammer_and_wrench: '🛠️',
  lock: '🔒',
  mag: '🔍',
  memo: '📝',
  microscope: '🔬',
  robot_face: '🤖',
  rocket: '🚀',
  shield: '🛡️',
  sparkles: '✨',
  star: '⭐',
  stethoscope: '🩺',
  telescope: '🔭',
  test_tube: '🧪',
  wrench: '🔧',
  zap: '⚡',
};

/**
 * Text for Discord: CommonMark as is, except what Discord does not render — tables become an
 * aligned code block, images a plain link (a bare URL would unfurl a preview of any image).
 */
export function toDiscordMarkdown(markdown: string): string {
  return tablesToCodeBlocks(markdown)
    .split(/(```[\s\S]*?(?:```|$)|`[^`\n]*`)/g)
    .map((segment, index) =>
      index % 2 === 1
        ? segment
        : segment.replace(/!\[([^\]]*)\]\((https?:\/\/[^)\s]+)\)/g, (_match, label: string, url: string) => `[${label || 'image'}](<${url}>)`),
    )
    .join('');
}

/** The unicode emoji of an avatar (`:wrench:` or `🔧`); undefined for URLs, unknown shortcodes and nothing. */
export function avatarEmoji(avatar: string | undefined): string | undefined {
  if (!avatar || /^https?:\/\//.test(avatar)) return undefined;
  const shortcode = /^:([\w+-]+):$/.exec(avatar);
  if (shortcode) return SHORTCODE_EMOJI[shortcode[1]!];
  // Anything short and without letters or digits is taken as an emoji already.
  return avatar.length <= 8 && !/[\p{L}\p{N}\s]/u.test(avatar) ? avatar : undefined;
}
