/**
 * Text normalization for memory retrieval: lower case, accents folded (NFD), English and a few
 * Italian stop words dropped, and a light suffix stemmer so `caching`, `cached` and `caches` meet.
 */

const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its ' +
    'me my no not of on or our she so than that the their them then there these they this those to too us was we were what ' +
    'when where which who why will with would you your yours also just any all about after before over under again very ' +
    // Italian
    'il lo la le gli un una uno di da del della dei delle che per con non sono come anche piu ma se nel nella questo questa'
  ).split(' '),
);

/**
 * Stored indexes hold analysed terms: bump this when `tokenize` or `duplicateKey` change, so that
 * snapshots made by the old analysis are rebuilt (`index-snapshot.ts` also checks a probe text).
 */
export const TEXT_ANALYSIS_VERSION = 1;

const COMBINING_MARKS = /\p{M}+/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/** Lower case with accents removed (`Café` → `cafe`). */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(COMBINING_MARKS, '').toLowerCase();
}

/** Stems of words seen before: a scope's vocabulary is small next to its facts, and loading one re-stems every word. */
const STEM_CACHE = new Map<string, string>();
const STEM_CACHE_MAX = 50_000;

/** A light English suffix stemmer: plural, -ing, -ed, doubled consonants, final -e. */
export function stem(word: string): string {
  let stemmed = STEM_CACHE.get(word);
  if (stemmed === undefined) {
    stemmed = stemUncached(word);
    if (STEM_CACHE.size >= STEM_CACHE_MAX) STEM_CACHE.clear();
    STEM_CACHE.set(word, stemmed);
  }
  return stemmed;
}

function stemUncached(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let stemmed = word;
  if (stemmed.endsWith('ies') && stemmed.length > 4) stemmed = `${stemmed.slice(0, -3)}y`;
  else if (stemmed.endsWith('sses')) stemmed = stemmed.slice(0, -2);
  else if (stemmed.endsWith('s') && !/(ss|us|is)$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  if (stemmed.endsWith('ing') && stemmed.length >= 6) stemmed = stemmed.slice(0, -3);
  else if (stemmed.endsWith('ed') && stemmed.length >= 5) stemmed = stemmed.slice(0, -2);
  if (/([^aeiouslz])\1$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  if (stemmed.endsWith('e') && stemmed.length > 3) stemmed = stemmed.slice(0, -1);
  return stemmed;
}

/** Search terms of `text`: folded words, stop words and one-letter words dropped, stemmed. */
export function tokenize(text: string): string[] {
  return termsOf(foldText(text).match(WORD) ?? []);
}

/** The content with case, accents, punctuation and spacing erased: equal keys mean duplicates. */
export function duplicateKey(text: string): string {
  return (foldText(text).match(WORD) ?? []).join(' ');
}

/** `tokenize` and `duplicateKey` of one text, folding it once. */
export function analyze(text: string): { terms: string[]; duplicateKey: string } {
  const words = foldText(text).match(WORD) ?? [];
  return { terms: termsOf(words), duplicateKey: words.join(' ') };
}

function termsOf(words: readonly string[]): string[] {
  const terms: string[] = [];
  for (const word of words) {
    if (word.length < 2 || STOP_WORDS.has(word)) continue;
    terms.push(stem(word));
  }
  return terms;
}
