/**
 * A scope view as bytes, so a process opens a large scope without reading and analysing every fact:
 * a small JSON header (format, text-analysis fingerprint, byte order, scope, counts) and the packed
 * index (postings by term, terms by fact, the sorted fact ids and terms as UTF-16 code units) and
 * the per-fact columns as typed arrays — nothing is made per fact or term when it opens. Decoding
 * refuses anything it cannot vouch for (another format, analysis, byte order or scope, or arrays
 * that do not fit) by returning undefined.
 */
import { packBm25, unpackBm25 } from './bm25-packing.js';
import { createScopeView, hash53, type ScopeView } from './scope-view.js';
import { duplicateKey, TEXT_ANALYSIS_VERSION, tokenize } from './text-normalize.js';

const MAGIC = 0x494d5354; // "TSMI" read little-endian
const FORMAT = 2;
/** Exercises folding, stop words and stemming: a change to any of them changes the fingerprint. */
const PROBE = 'The Cafés were caching policies; running tests stopped — il database della squadra è lento, 2024 tokens';
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Identifies the text analysis the stored terms came from. */
export const ANALYSIS_FINGERPRINT = `${TEXT_ANALYSIS_VERSION}:${hash53(`${tokenize(PROBE).join(' ')}|${duplicateKey(PROBE)}`).toString(36)}`;

interface Header {
  format: number;
  analysis: string;
  littleEndian: boolean;
  scope: string;
  /** How many facts and terms, and the code units of their ids and of the terms. */
  facts: number;
  terms: number;
  idUnits: number;
  termUnits: number;
  postings: number;
}

const align8 = (offset: number): number => Math.ceil(offset / 8) * 8;
/**
 * Bytes after the header: five numbers per fact; lengths, postings and documents (offsets, values),
 * id and term offsets; the weights and the code units of the ids and terms; flags.
 */
const bodySize = (header: Pick<Header, 'facts' | 'terms' | 'postings' | 'idUnits' | 'termUnits'>): number => {
  const { facts, terms, postings, idUnits, termUnits } = header;
  return (
    8 * 5 * facts + 4 * (facts + (terms + 1 + postings) + (facts + 1 + postings) + (facts + 1) + (terms + 1)) + 2 * (2 * postings + idUnits + termUnits) + facts
  );
};

/** Writes `text` as UTF-16 code units at `offset` of `buffer`. */
function writeUnits(buffer: ArrayBuffer, offset: number, text: string): void {
  const units = new Uint16Array(buffer, offset, text.length);
  for (let unit = 0; unit < text.length; unit += 1) units[unit] = text.charCodeAt(unit);
}

/** The view's index and columns as bytes. */
export function encodeScopeView(view: ScopeView): Uint8Array {
  const packed = packBm25(view.index);
  const count = packed.lengths.length;
  const postings = packed.postings.values.length;
  const idUnits = packed.ids.text.length;
  const termUnits = packed.terms.text.length;
  const header: Header = {
    format: FORMAT,
    analysis: ANALYSIS_FINGERPRINT,
    littleEndian: LITTLE_ENDIAN,
    scope: view.scope,
    facts: count,
    terms: packed.terms.offsets.length - 1,
    idUnits,
    termUnits,
    postings,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const start = align8(8 + headerBytes.length);
  const bytes = new Uint8Array(start + bodySize(header));
  const data = new DataView(bytes.buffer);
  data.setUint32(0, MAGIC, true);
  data.setUint32(4, headerBytes.length, true);
  bytes.set(headerBytes, 8);
  const numbers = new Float64Array(bytes.buffer, start, 5 * count);
  const flags = new Uint8Array(count);
  const { columns } = view;
  packed.slotOf.forEach((slot, position) => {
    numbers[position] = columns.hits[slot]!;
    numbers[count + position] = columns.createdAt[slot]!;
    numbers[2 * count + position] = columns.lastUsedAt[slot]!;
    numbers[3 * count + position] = columns.textHash[slot]!;
    numbers[4 * count + position] = columns.duplicateHash[slot]!;
    flags[position] = columns.flags[slot]!;
  });
  let offset = start + 8 * 5 * count;
  const { postings: byTerm, documents: byDocument } = packed;
  for (const part of [packed.lengths, byTerm.offsets, byTerm.values, byDocument.offsets, byDocument.values, packed.ids.offsets, packed.terms.offsets]) {
    new Int32Array(bytes.buffer, offset, part.length).set(part);
    offset += 4 * part.length;
  }
  for (const part of [byTerm.weights, byDocument.weights]) {
    new Uint16Array(bytes.buffer, offset, part.length).set(part);
    offset += 2 * part.length;
  }
  writeUnits(bytes.buffer, offset, packed.ids.text);
  writeUnits(bytes.buffer, offset + 2 * idUnits, packed.terms.text);
  bytes.set(flags, offset + 2 * (idUnits + termUnits));
  return bytes;
}

function readHeader(bytes: Uint8Array): { header: Header; length: number } | undefined {
  if (bytes.length < 8) return undefined;
  const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (data.getUint32(0, true) !== MAGIC) return undefined;
  const length = data.getUint32(4, true);
  if (8 + length > bytes.length) return undefined;
  const header: unknown = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 8, length).toString('utf8'));
  if (typeof header !== 'object' || header === null) return undefined;
  const candidate = header as Partial<Header>;
  const counts = [candidate.facts, candidate.terms, candidate.idUnits, candidate.termUnits, candidate.postings];
  if (!counts.every((count) => typeof count === 'number' && Number.isSafeInteger(count) && count >= 0)) return undefined;
  return { header: candidate as Header, length };
}

/**
 * The view `bytes` hold for `scope`, or undefined when they were made by another format, text
 * analysis or byte order, for another scope, or do not hold together.
 */
export function decodeScopeView(scope: string, bytes: Uint8Array): ScopeView | undefined {
  try {
    const read = readHeader(bytes);
    if (!read) return undefined;
    const { header } = read;
    if (header.format !== FORMAT || header.analysis !== ANALYSIS_FINGERPRINT || header.littleEndian !== LITTLE_ENDIAN || header.scope !== scope)
      return undefined;
    const { facts: count, terms, postings, idUnits, termUnits } = header;
    const start = align8(8 + read.length);
    if (bytes.length !== start + bodySize(header)) return undefined;
    // The packed arrays are never changed: they stay views of `bytes` when aligned (a 200k scope's
    // blob is ~60 MB), else of one copy. The columns change, so they are copied (`bytes` stays as it was).
    const aligned = bytes.byteOffset % 8 === 0;
    const buffer = aligned ? bytes.buffer : bytes.slice().buffer;
    const at = aligned ? bytes.byteOffset : 0;
    const numbers = (part: number): Float64Array => new Float64Array(buffer, at + start + 8 * part * count, count).slice();
    let offset = at + start + 8 * 5 * count;
    const int32 = (length: number): Int32Array => {
      const part = new Int32Array(buffer, offset, length);
      offset += 4 * length;
      return part;
    };
    const lengths = int32(count);
    const termOffsets = int32(terms + 1);
    const termValues = int32(postings);
    const documentOffsets = int32(count + 1);
    const documentValues = int32(postings);
    const idOffsets = int32(count + 1);
    const termTextOffsets = int32(terms + 1);
    const termWeights = new Uint16Array(buffer, offset, postings);
    const documentWeights = new Uint16Array(buffer, offset + 2 * postings, postings);
    const units = (at: number, length: number): string => Buffer.from(buffer, at, 2 * length).toString('utf16le');
    const idText = units(offset + 4 * postings, idUnits);
    const termText = units(offset + 4 * postings + 2 * idUnits, termUnits);
    const flags = new Uint8Array(buffer, offset + 4 * postings + 2 * (idUnits + termUnits), count).slice();
    const view = createScopeView(scope);
    view.index = unpackBm25({
      terms: { text: termText, offsets: termTextOffsets },
      ids: { text: idText, offsets: idOffsets },
      lengths,
      postings: { offsets: termOffsets, values: termValues, weights: termWeights },
      documents: { offsets: documentOffsets, values: documentValues, weights: documentWeights },
    });
    view.columns = { hits: numbers(0), createdAt: numbers(1), lastUsedAt: numbers(2), textHash: numbers(3), duplicateHash: numbers(4), flags };
    return view;
  } catch {
    // Malformed JSON or arrays that do not fit: the caller reads the scope in full instead.
    return undefined;
  }
}
