// The architecture, checked on the source: data flows one way (formats → core → engine → runlog →
// analysis → report), so no module imports itself back through others, no format folder imports
// another, and nothing downstream of loading imports a format.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from './support/paths.js';

const SRC = join(repoRoot, 'src');

/** Every .ts file under src, relative to it, with the relative modules it imports (type-only ones too). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = readdirSync(SRC, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const text = readFileSync(join(SRC, file), 'utf8');
    const targets: string[] = [];
    for (const m of text.matchAll(
      /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm,
    )) {
      const target = relative(SRC, resolve(dirname(join(SRC, file)), m[1])).replace(/\.js$/, '.ts');
      targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle in the graph (each reported once, from its smallest file name). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const seen = new Set<string>();
  for (const start of [...graph.keys()].sort()) {
    const stack: [string, string[]][] = [[start, [start]]];
    const visited = new Set<string>();
    while (stack.length > 0) {
      const [node, path] = stack.pop()!;
      for (const next of graph.get(node) ?? []) {
        if (next === start) {
          const key = [...path].sort().join('|');
          if (!seen.has(key) && path.every((p) => p >= start)) {
            seen.add(key);
            found.push([...path, start]);
          }
        } else if (!visited.has(next) && graph.has(next)) {
          visited.add(next);
          stack.push([next, [...path, next]]);
        }
      }
    }
  }
  return found;
}

describe('architecture', () => {
  const graph = importGraph();

  it('reads the source (the checks below see every module)', () => {
    assert.ok(graph.size > 150, `${graph.size} modules`);
    assert.ok(graph.get('evaluate.ts')?.includes('engine/run.ts'));
  });

  it('has no import cycle', () => {
    const found = cycles(graph);
    assert.deepEqual(
      found.map((c) => c.join(' → ')),
      [],
    );
  });

  it('no format folder imports another, nor the format registry', () => {
    const problems: string[] = [];
    for (const [file, targets] of graph) {
      const own = /^formats\/([^/]+)\//.exec(file)?.[1];
      if (!own) continue;
      for (const t of targets) {
        const other = /^formats\/([^/]+)\//.exec(t)?.[1];
        if (other && other !== own) problems.push(`${file} imports ${t}`);
        if (t === 'formats/detect.ts') problems.push(`${file} imports the registry ${t}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('nothing downstream of loading imports a format: engine, runlog, analysis, providers, scorers, runtime, core', () => {
    const problems: string[] = [];
    for (const [file, targets] of graph) {
      if (!/^(engine|runlog|analysis|providers|scorers|runtime|core)\//.test(file)) continue;
      for (const t of targets) if (t.startsWith('formats/')) problems.push(`${file} imports ${t}`);
    }
    assert.deepEqual(problems, []);
  });

  it('the user-code runtime sits beneath the engine: it imports no engine, run log, analysis, report or command', () => {
    const problems: string[] = [];
    for (const [file, targets] of graph) {
      if (!file.startsWith('runtime/')) continue;
      for (const t of targets)
        if (/^(engine|runlog|analysis|report|cli|evaluate)(\/|\.ts$)/.test(t))
          problems.push(`${file} imports ${t}`);
    }
    assert.ok([...graph.keys()].some((f) => f.startsWith('runtime/')));
    assert.deepEqual(problems, []);
  });
});
