/**
 * Sorted strings packed for a snapshot (`bm25-packing.ts`): back to back in one string with their
 * offsets, found by binary search, so an opened index holds its fact ids and terms without a string
 * or map entry each. Order is by UTF-16 code units, as `<` compares strings.
 */

/** Strings back to back, each at `text[offsets[i], offsets[i + 1])`, strictly ascending by code units (as `<` compares). */
export interface SortedStrings {
  text: string;
  offsets: Int32Array;
}

export const stringAt = (strings: SortedStrings, position: number): string => strings.text.slice(strings.offsets[position], strings.offsets[position + 1]);

/** Compares string `position` of `strings` with `key` by code units, without making a string. */
function compareAt(strings: SortedStrings, position: number, key: string): number {
  const start = strings.offsets[position]!;
  const length = strings.offsets[position + 1]! - start;
  const shorter = Math.min(length, key.length);
  for (let unit = 0; unit < shorter; unit += 1) {
    const difference = strings.text.charCodeAt(start + unit) - key.charCodeAt(unit);
    if (difference !== 0) return difference;
  }
  return length - key.length;
}

/** The position of `key` in `strings` by binary search, or undefined. */
export function findSorted(strings: SortedStrings, key: string): number | undefined {
  let low = 0;
  let high = strings.offsets.length - 2;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const comparison = compareAt(strings, middle, key);
    if (comparison === 0) return middle;
    if (comparison < 0) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

/** Already sorted `strings` in one string. */
export function joinStrings(strings: readonly string[]): SortedStrings {
  const offsets = new Int32Array(strings.length + 1);
  strings.forEach((text, position) => (offsets[position + 1] = offsets[position]! + text.length));
  return { text: strings.join(''), offsets };
}

/** Throws unless `strings` holds `count` strings, strictly ascending (none repeated). */
export function checkSorted(strings: SortedStrings, count: number, name: string): void {
  const { text, offsets } = strings;
  if (offsets.length !== count + 1 || offsets[0] !== 0 || offsets[count] !== text.length) throw new RangeError(`packed index: ${name} do not fit`);
  for (let position = 1; position < count; position += 1) {
    const startA = offsets[position - 1]!;
    const startB = offsets[position]!;
    const endB = offsets[position + 1]!;
    if (endB < startB) throw new RangeError(`packed index: ${name} out of order`);
    const lengthA = startB - startA;
    const lengthB = endB - startB;
    const shorter = Math.min(lengthA, lengthB);
    let unit = 0;
    while (unit < shorter && text.charCodeAt(startA + unit) === text.charCodeAt(startB + unit)) unit += 1;
    const ascending = unit < shorter ? text.charCodeAt(startA + unit) < text.charCodeAt(startB + unit) : lengthA < lengthB;
    if (!ascending) throw new RangeError(`packed index: ${name} unsorted or repeated`);
  }
}
