// Several configs in one run (`-c a.yaml -c b.yaml`), combined as promptfoo's combineConfigs
// combines them: providers de-duplicated, prompts concatenated (identical strings once), tests and
// scenarios concatenated, defaultTests merged (vars, options and metadata key by key, assertions
// concatenated), the maps (env, evaluateOptions, commandLineOptions, metadata, nunjucksFilters)
// merged with the later config winning, outputPath and derivedMetrics concatenated, descriptions
// joined with ", ". Each config's relative `file://` references are made absolute against its own
// folder, so every config reads its files where it sits. The combined config keeps, for every
// value, where it was written, so diagnostics name the right file and line.
import { isAbsolute, resolve } from 'node:path';
import { errorAt, isRecord, type LoadContext } from './context.js';
import { type PathPart, type Where, YamlFile } from './source.js';

/** One config as parsed (its `$ref`s resolved, its env templates rendered). */
export interface ConfigPart {
  yaml: YamlFile;
  config: Record<string, unknown>;
  dir: string;
  env?: Record<string, string>;
}

type Origin = [part: number, path: PathPart[]];

/** A YAML file standing for the combined config: each path is located in the config it came from. */
class CombinedYaml extends YamlFile {
  constructor(
    private readonly parts: ConfigPart[],
    private readonly lists: Map<string, Origin[]>,
    text: string,
  ) {
    super(parts[0].yaml.file, text);
  }

  override locate(path: readonly PathPart[] = []): Where {
    const [part, at] = this.origin(path);
    return this.parts[part].yaml.locate(at);
  }

  override locateKey(path: readonly PathPart[]): Where {
    const [part, at] = this.origin(path);
    return this.parts[part].yaml.locateKey(at);
  }

  private origin(path: readonly PathPart[]): Origin {
    for (let n = path.length - 1; n >= 1; n--) {
      const list = typeof path[n] === 'number' ? this.lists.get(path.slice(0, n).join('\u0000')) : undefined;
      const hit = list?.[path[n] as number];
      if (hit) return [hit[0], [...hit[1], ...path.slice(n + 1)]];
    }
    // A merged map's key: the last config that wrote it (the one whose value won).
    for (let p = this.parts.length - 1; p >= 0; p--)
      if (this.parts[p].yaml.doc.hasIn(path)) return [p, [...path]];
    return [0, [...path]];
  }
}

/** `file://x` made absolute against `dir` (anything else as it is), through lists and mappings. */
function absoluteRefs(value: unknown, dir: string): unknown {
  if (typeof value === 'string') {
    if (!value.startsWith('file://')) return value;
    const rest = value.slice('file://'.length);
    return isAbsolute(rest) ? value : `file://${resolve(dir, rest)}`;
  }
  if (Array.isArray(value)) return value.map((v) => absoluteRefs(v, dir));
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, absoluteRefs(v, dir)]));
  return value;
}

const MERGED_MAPS = ['env', 'evaluateOptions', 'commandLineOptions', 'metadata', 'nunjucksFilters', 'tags'];

/** Combines several parsed configs into one, as promptfoo does; problems are reported on `ctx`. */
export function combineConfigs(
  ctx: LoadContext,
  parts: ConfigPart[],
): { config: Record<string, unknown>; yaml: YamlFile; env?: Record<string, string> } {
  const configs = parts.map((p, i) => {
    const c = (i === 0 ? p.config : absoluteRefs(p.config, p.dir)) as Record<string, unknown>;
    // promptfoo reads `targets` as `providers` in each config before combining them.
    if (c.targets !== undefined && c.providers === undefined) return { ...c, providers: c.targets };
    return c;
  });
  const lists = new Map<string, Origin[]>();
  const listOf = (key: string): Origin[] => {
    const list = lists.get(key) ?? [];
    lists.set(key, list);
    return list;
  };
  const combined: Record<string, unknown> = {};

  const providers: unknown[] = [];
  const seenProviders = new Set<string>();
  configs.forEach((c, p) => {
    const key =
      parts[p].config.targets !== undefined && parts[p].config.providers === undefined
        ? 'targets'
        : 'providers';
    const value = c.providers;
    const entries: [unknown, PathPart[]][] =
      typeof value === 'string'
        ? [[value, [key]]]
        : Array.isArray(value)
          ? value.map((v, i) => [v, [key, i]])
          : [];
    for (const [entry, at] of entries) {
      // De-duplicated on the entry as written (promptfoo compares the JSON of each entry).
      const raw =
        typeof value === 'string'
          ? value
          : (parts[p].yaml.value as Record<string, unknown[]>)[key]?.[at[1] as number];
      const dedupe = typeof entry === 'string' ? `s:${raw}` : `j:${JSON.stringify(raw)}`;
      if (seenProviders.has(dedupe)) continue;
      seenProviders.add(dedupe);
      providers.push(entry);
      listOf('providers').push([p, at]);
    }
  });
  combined.providers = providers;

  const allLists = configs.every((c) => typeof c.prompts === 'string' || Array.isArray(c.prompts));
  if (allLists) {
    const prompts: unknown[] = [];
    const seen = new Set<string>();
    configs.forEach((c, p) => {
      const entries: [unknown, PathPart[]][] =
        typeof c.prompts === 'string'
          ? [[c.prompts, ['prompts']]]
          : (c.prompts as unknown[]).map((v, i) => [v, ['prompts', i]]);
      for (const [entry, at] of entries) {
        if (typeof entry === 'string') {
          if (seen.has(entry)) continue;
          seen.add(entry);
        }
        prompts.push(entry);
        listOf('prompts').push([p, at]);
      }
    });
    combined.prompts = prompts;
  } else {
    let prompts: Record<string, unknown> = {};
    configs.forEach((c, p) => {
      if (typeof c.prompts === 'string' || Array.isArray(c.prompts)) {
        errorAt(
          ctx,
          parts[p].yaml.locateKey(['prompts']),
          'Cannot mix configs with map and array-type prompts (promptfoo combines several configs only when all list their prompts, or all map them)',
        );
      } else if (isRecord(c.prompts)) prompts = { ...prompts, ...c.prompts };
    });
    combined.prompts = prompts;
  }

  const tests: unknown[] = [];
  configs.forEach((c, p) => {
    if (Array.isArray(c.tests)) {
      c.tests.forEach((t, i) => {
        tests.push(t);
        listOf('tests').push([p, ['tests', i]]);
      });
    } else if (typeof c.tests === 'string' || (isRecord(c.tests) && 'path' in c.tests)) {
      tests.push(c.tests);
      listOf('tests').push([p, ['tests']]);
    }
  });
  combined.tests = tests;

  if (configs.some((c) => c.scenarios !== undefined)) {
    const scenarios: unknown[] = [];
    configs.forEach((c, p) => {
      const value = c.scenarios ?? [];
      const list = Array.isArray(value) ? value : [value];
      list.forEach((s, i) => {
        scenarios.push(s);
        listOf('scenarios').push([p, Array.isArray(value) ? ['scenarios', i] : ['scenarios']]);
      });
    });
    combined.scenarios = scenarios;
  }

  let defaultTest: unknown;
  configs.forEach((c, p) => {
    const current = c.defaultTest;
    if (typeof current === 'string') defaultTest = current;
    else if (typeof defaultTest === 'string') return;
    else if (defaultTest === undefined && current === undefined) return;
    else {
      const prev = isRecord(defaultTest) ? defaultTest : {};
      const cur = isRecord(current) ? current : {};
      const asserts = [...((prev.assert as unknown[]) ?? []), ...((cur.assert as unknown[]) ?? [])];
      if (Array.isArray(cur.assert))
        for (let i = 0; i < cur.assert.length; i++)
          listOf('defaultTest\u0000assert').push([p, ['defaultTest', 'assert', i]]);
      defaultTest = {
        ...prev,
        ...cur,
        vars: { ...(prev.vars as object), ...(cur.vars as object) },
        assert: asserts,
        options: { ...(prev.options as object), ...(cur.options as object) },
        metadata: { ...(prev.metadata as object), ...(cur.metadata as object) },
      };
    }
  });
  if (defaultTest !== undefined) combined.defaultTest = defaultTest;

  const metrics = configs.flatMap((c, p) =>
    Array.isArray(c.derivedMetrics)
      ? c.derivedMetrics.map((m, i) => ({ m, o: [p, ['derivedMetrics', i]] as Origin }))
      : [],
  );
  if (configs.some((c) => c.derivedMetrics)) {
    combined.derivedMetrics = metrics.map((x) => x.m);
    for (const x of metrics) listOf('derivedMetrics').push(x.o);
  }
  for (const key of MERGED_MAPS) {
    const merged: Record<string, unknown> = {};
    for (const c of configs) if (isRecord(c[key])) Object.assign(merged, c[key]);
    if (Object.keys(merged).length > 0 || configs.some((c) => c[key] !== undefined)) combined[key] = merged;
  }
  const outputs = configs.flatMap((c) =>
    typeof c.outputPath === 'string' ? [c.outputPath] : Array.isArray(c.outputPath) ? c.outputPath : [],
  );
  if (outputs.length > 0) combined.outputPath = outputs;
  const described = configs.some((c) => c.description !== undefined);
  if (described)
    combined.description = configs
      .map((c) => (c.description === undefined || c.description === null ? '' : String(c.description)))
      .join(', ');

  const env = parts.some((p) => p.env) ? Object.assign({}, ...parts.map((p) => p.env ?? {})) : undefined;
  const yaml = new CombinedYaml(parts, lists, JSON.stringify(combined));
  return { config: combined, yaml, env };
}
