/**
 * The command layer writes CommonMark; Slack reads mrkdwn. Converts bold, links and headings,
 * leaving code spans and fenced blocks untouched.
 */
export function toSlackMrkdwn(markdown: string): string {
  return markdown
    .split(/(```[\s\S]*?```|`[^`\n]*`)/g)
    .map((segment, index) => (index % 2 === 1 ? segment : convertProse(segment)))
    .join('');
}

function convertProse(text: string): string {
  return text
    .replace(/^#{1,6}\s+(.+)$/gm, '*$1*')
    .replace(/\*\*(.+?)\*\*/g, '*$1*')
    .replace(/__(.+?)__/g, '*$1*')
    .replace(/~~(.+?)~~/g, '~$1~')
    .replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g, '<$2|$1>');
}
