/**
 * A stdio server's own words for a failure: the first line of its stderr that reads like an error
 * (Node prints the error first and its version last, so the last line says nothing), else the
 * first line; then what the sandbox kept hidden of what its entry names, with the way out.
 */

const ERROR_LINE = /\b(error|cannot|can't|not found|no such|denied|permission|missing|failed|enoent|eacces)\b/i;

export function failureWords(stderr: string, hiddenNotes: readonly string[]): string {
  const lines = stderr
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const first = lines.find((line) => ERROR_LINE.test(line)) ?? lines[0];
  const said = first ? ` — ${first.slice(0, 300)}` : '';
  const hidden = hiddenNotes.length > 0 ? ` (${hiddenNotes.join('; ')}; or set "sandbox": false on this entry to run it on the host)` : '';
  return said + hidden;
}
