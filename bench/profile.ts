/** Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): top self-time functions and where time goes by area. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  /** For a frame in assay's bundle (dist/bundle/): the chunk file and line it ran from. */
  bundled?: string;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Self time of one function or one area. */
export interface SelfTime {
  name: string;
  ms: number;
  share: number;
}

/** The summary of one profile. */
export interface ProfileSummary {
  totalMs: number;
  functions: SelfTime[];
  areas: SelfTime[];
  /** assay's own functions by inclusive time (the function or anything it called was running). */
  assayInclusive: SelfTime[];
}

/** Names the area a frame belongs to: an npm package, a folder of assay's source, Node itself, or V8. */
export function areaOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `npm: ${nm[1]}`;
  const src = /\/dist\/src\/([^/]+)\//.exec(url);
  if (src) return `assay src/${src[1]}/`;
  if (/\/dist\/src\/[^/]+\.js$/.test(url)) return 'assay src/*.js';
  return url.split('/').slice(-2).join('/');
}

function frameName(frame: CallFrame): string {
  const file = frame.url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|dist)\//, '$1/');
  const at = frame.bundled ?? (file ? `${file}:${frame.lineNumber + 1}` : '');
  return `${frame.functionName || '(anonymous)'} ${frame.bundled ? `${file} (${at})` : at}`.trim();
}

/** Per chunk of dist/bundle/: the first line (0-based) of each module, and the module's path. */
const chunkModules = new Map<string, { line: number; module: string }[]>();

/**
 * A frame of assay's bundle (dist/bundle/, built by scripts/bundle.js) attributed to the module of
 * dist/src/ it came from, so areas and names read as for the unbundled build. esbuild starts each
 * module's code in a chunk with a `// dist/src/…` comment line; code before the first is the
 * chunk's own (imports, esbuild's helpers).
 */
function unbundled(frame: CallFrame): CallFrame {
  const m = /^(file:\/\/.*\/dist\/)bundle\/(.*\.js)$/.exec(frame.url);
  if (!m) return frame;
  let modules = chunkModules.get(frame.url);
  if (!modules) {
    modules = [];
    try {
      readFileSync(fileURLToPath(frame.url), 'utf8')
        .split('\n')
        .forEach((text, line) => {
          const start = /^\/\/ dist\/(src\/.*\.js)$/.exec(text);
          if (start) modules?.push({ line, module: start[1] as string });
        });
    } catch {
      // The bundle was rebuilt or removed since the profile was taken: keep the chunk's name.
    }
    chunkModules.set(frame.url, modules);
  }
  const owner = modules.findLast((x) => x.line <= frame.lineNumber);
  const bundled = `bundle/${m[2]}:${frame.lineNumber + 1}`;
  if (!owner) return { ...frame, bundled };
  return { ...frame, url: `${m[1]}${owner.module}`, bundled };
}

/** Reads a `.cpuprofile` and attributes each sample's time to its leaf frame (self time). */
export function summariseProfile(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, unbundled(n.callFrame)]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  const fn = new Map<string, number>();
  const area = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    if (!frame || us <= 0) return;
    total += us;
    const name = frameName(frame);
    fn.set(name, (fn.get(name) ?? 0) + us);
    const a = areaOf(frame);
    area.set(a, (area.get(a) ?? 0) + us);
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at);
      if (f?.url.includes('/dist/src/')) onStack.add(frameName(f));
    }
    for (const name of onStack) inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  });
  const rank = (m: Map<string, number>, n: number): SelfTime[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: us / 1000, share: total ? us / total : 0 }));
  return {
    totalMs: total / 1000,
    functions: rank(fn, top),
    areas: rank(area, 12),
    assayInclusive: rank(inclusive, top),
  };
}

/** Renders a summary as two Markdown tables. */
export function profileMarkdown(s: ProfileSummary): string {
  const table = (title: string, rows: SelfTime[]): string[] => [
    `| ${title} | self ms | share |`,
    '| --- | ---: | ---: |',
    ...rows.map(
      (r) => `| \`${r.name.replace(/\|/g, '\\|')}\` | ${r.ms.toFixed(0)} | ${(r.share * 100).toFixed(1)}% |`,
    ),
  ];
  return [
    `Sampled ${s.totalMs.toFixed(0)} ms of the main thread.`,
    '',
    ...table('area', s.areas),
    '',
    ...table('function (self time)', s.functions),
    '',
    ...table('assay function (inclusive time)', s.assayInclusive).map((l) =>
      l.replace('self ms', 'incl. ms'),
    ),
  ].join('\n');
}
