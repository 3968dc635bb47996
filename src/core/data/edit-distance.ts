/**
 * Edit distance where an insertion, deletion, substitution or swap of two neighbours each cost 1
 * (optimal string alignment), so the typo `goerdi` is one edit from `geordi`.
 */
export function editDistance(left: string, right: string): number {
  if (left === right) return 0;
  const rows = left.length + 1;
  const columns = right.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  const at = (row: number, column: number): number => table[row]?.[column] ?? Number.POSITIVE_INFINITY;
  for (let row = 1; row < rows; row += 1) {
    for (let column = 1; column < columns; column += 1) {
      const cost = left[row - 1] === right[column - 1] ? 0 : 1;
      let best = Math.min(at(row - 1, column) + 1, at(row, column - 1) + 1, at(row - 1, column - 1) + cost);
      if (row > 1 && column > 1 && left[row - 1] === right[column - 2] && left[row - 2] === right[column - 1]) {
        best = Math.min(best, at(row - 2, column - 2) + 1);
      }
      const tableRow = table[row];
      if (tableRow) tableRow[column] = best;
    }
  }
  return at(rows - 1, columns - 1);
}

/** The candidates within `maxDistance` edits of `text`, nearest first, ties in the candidates' order. */
export function nearestMatches(text: string, candidates: Iterable<string>, maxDistance = 2): string[] {
  const scored: { candidate: string; distance: number; order: number }[] = [];
  let order = 0;
  for (const candidate of candidates) {
    const distance = editDistance(text, candidate);
    if (distance <= maxDistance) scored.push({ candidate, distance, order });
    order += 1;
  }
  return scored.sort((a, b) => a.distance - b.distance || a.order - b.order).map((entry) => entry.candidate);
}
