/**
 * No import cycles in src/, type-only imports included: a cycle ties modules together so that
 * neither can be understood, tested or moved alone (src/cli ↔ src/app, the command layer ↔
 * escalation and run-turn ↔ run-card were the last ones).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../../src');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const full = path.join(directory, entry);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** Relative imports and re-exports (static, dynamic, type-only), resolved to source files. */
function localImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((match) =>
    path.resolve(path.dirname(file), match[1] ?? match[2]!).replace(/\.js$/, '.ts'),
  );
}

/** The strongly connected components with more than one file (Tarjan): each is a cycle. */
function findCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

describe('import cycles', () => {
  it('src/ has none, counting type-only imports', () => {
    const graph = new Map(sourceFiles(SRC).map((file) => [file, localImports(file)]));
    expect(graph.size).toBeGreaterThan(100);
    expect(findCycles(graph).map((cycle) => cycle.map((file) => path.relative(SRC, file)).join(' ↔ '))).toEqual([]);
  });

  it('the detector finds a cycle through several files, and a file importing itself (self-check)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
  });
});
