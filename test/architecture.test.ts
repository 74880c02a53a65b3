// The architecture, checked on the source: data flows one way (formats → core → engine → runlog →
// analysis → report, with the commands in cli/ on top), so no module imports itself back through
// others, each stage imports only the stages upstream of it, no format folder imports another, and
// nothing outside src/formats/ imports a format's folder: the format registry (formats/detect.ts,
// which also re-exports the SuiteFormat types) is the single entry point to the formats; a command
// finds a format's hooks there by the run's `manifest.suite.format`.
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
    for (const spec of importsOf(text)) {
      const target = relative(SRC, resolve(dirname(join(SRC, file)), spec)).replace(/\.js$/, '.ts');
      targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/**
 * The relative modules a source text imports: `import … from`, `export … from`, a bare `import`,
 * and `import(…)` / `require(…)` of a quoted or backquoted path (a template with no `${}` in it).
 */
function importsOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(
    /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"`])(\.{1,2}\/[^'"`$]+)\1/gm,
  ))
    found.push(m[2]);
  return found;
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

/** The stage of a module: its top folder (or its file name at the top of src/). */
const stage = (file: string) => file.split('/')[0];

/**
 * What each checked stage may import besides itself: the stages upstream of it. `engine` stands
 * for the engine alone (providers, scorers and templates are what it runs; only report/ needs
 * templates). cli/ is checked on its own below: it is the top and may import every stage.
 */
const LAYERS: Record<string, string[]> = {
  core: [],
  template: ['core'],
  runtime: ['core', 'providers', 'scorers', 'template'],
  providers: ['core', 'runtime', 'template'],
  scorers: ['core', 'providers', 'runtime', 'template'],
  engine: ['core', 'providers', 'scorers', 'template', 'runtime'],
  runlog: ['core', 'engine'],
  analysis: ['core', 'engine', 'runlog'],
  report: ['core', 'engine', 'template', 'runlog', 'analysis'],
};

/**
 * Single files a stage may import across the layers: runlog/dirs.ts is a plain folder helper (no
 * run-log knowledge) that the response cache uses to create its folder.
 */
const CROSSINGS = new Set(['engine/cache.ts → runlog/dirs.ts']);

/** Imports of a stage that is not upstream of the importer (LAYERS). */
function layerProblems(graph: Map<string, string[]>, layer: string): string[] {
  const allowed = [layer, ...LAYERS[layer]];
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    if (stage(file) !== layer) continue;
    for (const t of targets)
      if (!allowed.includes(stage(t)) && !CROSSINGS.has(`${file} → ${t}`))
        problems.push(`${file} imports ${t}`);
  }
  return problems;
}

/**
 * Imports of a format's folder (or of formats/types.ts) from outside src/formats/: two doors only —
 * the suite-format registry, formats/detect.ts (it re-exports the SuiteFormat types and hooks), and
 * formats/reports.ts, which registers every format's own output writers (the entry src/outputs.ts
 * imports it beside assay's own report/formats.ts).
 */
function registryProblems(graph: Map<string, string[]>): string[] {
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    if (stage(file) === 'formats') continue;
    for (const t of targets)
      if (
        stage(t) === 'formats' &&
        t !== 'formats/detect.ts' &&
        !(t === 'formats/reports.ts' && file === 'outputs.ts')
      )
        problems.push(`${file} imports ${t}`);
  }
  return problems;
}

/** Imports of cli/ from outside it: the commands are the top (bin/assay.js alone runs them). */
function cliProblems(graph: Map<string, string[]>): string[] {
  const problems: string[] = [];
  for (const [file, targets] of graph)
    for (const t of targets)
      if (stage(t) === 'cli' && stage(file) !== 'cli') problems.push(`${file} imports ${t}`);
  return problems;
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

  it('nothing outside src/formats/ imports a format: only the registry, formats/detect.ts', () => {
    assert.deepEqual(registryProblems(graph), []);
  });

  for (const layer of Object.keys(LAYERS)) {
    it(`${layer}/ imports only itself and the stages upstream of it (${LAYERS[layer].join(', ') || 'none'})`, () => {
      assert.deepEqual(layerProblems(graph, layer), []);
    });
  }

  it('cli/ is the top: nothing else imports it (and it reaches the formats only through the registry, above)', () => {
    assert.deepEqual(cliProblems(graph), []);
  });

  it('the checks see violations: a downstream import, a format folder, cli/ from below, a backquoted import', () => {
    const probe = new Map([
      ['runlog/probe.ts', ['analysis/scorecard.ts', 'runlog/reader.ts']],
      ['analysis/probe.ts', ['report/html.ts']],
      ['report/probe.ts', ['evaluate.ts', 'cli/common.ts']],
      ['cli/probe.ts', ['formats/apastra/compare.ts', 'formats/detect.ts', 'report/html.ts']],
      ['evaluate.ts', ['formats/types.ts']],
      ['cli/probe2.ts', ['formats/reports.ts']],
      ['outputs.ts', ['formats/reports.ts']],
      ['engine/probe.ts', ['report/html.ts', 'evaluate.ts', 'runlog/reader.ts', 'scorers/registry.ts']],
      ['providers/probe.ts', ['engine/run.ts']],
    ]);
    assert.deepEqual(layerProblems(probe, 'engine'), [
      'engine/probe.ts imports report/html.ts',
      'engine/probe.ts imports evaluate.ts',
      'engine/probe.ts imports runlog/reader.ts',
    ]);
    assert.deepEqual(layerProblems(probe, 'providers'), ['providers/probe.ts imports engine/run.ts']);
    assert.deepEqual(
      importsOf(
        [
          "import a from '../formats/lve/load.js';",
          "export type * from './formats/types.js';",
          "import '../formats/reports.js';",
          'const m = await import(`../formats/lve/load.js`);',
          "const r = require('../formats/x.js');",
          'const d = await import(`../formats/' + '$' + '{name}/load.js`);',
        ].join('\n'),
      ),
      [
        '../formats/lve/load.js',
        './formats/types.js',
        '../formats/reports.js',
        '../formats/lve/load.js',
        '../formats/x.js',
      ],
    );
    assert.deepEqual(layerProblems(probe, 'runlog'), ['runlog/probe.ts imports analysis/scorecard.ts']);
    assert.deepEqual(layerProblems(probe, 'analysis'), ['analysis/probe.ts imports report/html.ts']);
    assert.deepEqual(layerProblems(probe, 'report'), [
      'report/probe.ts imports evaluate.ts',
      'report/probe.ts imports cli/common.ts',
    ]);
    assert.deepEqual(registryProblems(probe), [
      'cli/probe.ts imports formats/apastra/compare.ts',
      'evaluate.ts imports formats/types.ts',
      'cli/probe2.ts imports formats/reports.ts',
    ]);
    assert.deepEqual(cliProblems(probe), ['report/probe.ts imports cli/common.ts']);
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
