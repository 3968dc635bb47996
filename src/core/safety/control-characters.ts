/**
 * Removes characters that change how text is displayed rather than what it says: terminal escape
 * sequences (a tool's coloured output, or a hostile one that rewrites what a reader sees), C0/C1
 * control characters, and the Unicode bidirectional overrides and isolates that can make
 * `rm -rf /tmp/x` read as something else ("Trojan Source", CVE-2021-42574). Newlines and tabs
 * stay; so do the zero-width joiners emoji need.
 */

/** CSI (`ESC [ … final`), OSC (`ESC ] … BEL | ESC \`), and other two-character escapes. */
const ESCAPE_SEQUENCES = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])|\u009b[0-?]*[ -/]*[@-~]/g;
/** C0 controls but tab and newline (a lone carriage return can overwrite a line in a terminal), DEL, C1. */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** LRE RLE PDF LRO RLO, LRI RLI FSI PDI, and the Arabic letter mark. */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u061c]/g;

export function stripControlCharacters(text: string): string {
  if (!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u061c]/.test(text)) return text;
  return text.replace(/\r\n/g, '\n').replace(ESCAPE_SEQUENCES, '').replace(CONTROL_CHARACTERS, '').replace(BIDI_CONTROLS, '');
}
