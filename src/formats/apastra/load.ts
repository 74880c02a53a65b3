// Loads an apastra quick eval or suite (or a workspace root with --suite / --eval) into assay's
// Suite: every file schema-checked, every reference resolved, stored digests checked, each case
// rendered as apastra renders it, and scored by its evaluators and inline assertions.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { DiagnosticBag, InputError } from '../../core/errors.js';
import { sha256 } from '../../core/hash.js';
import { assignCaseIds } from '../../core/ids.js';
import { displayPath } from '../../core/positions.js';
import { PyFloat, PyInt, type PyValue } from '../../core/python/json-loads.js';
import { pyRepr } from '../../core/python/str.js';
import type { Case, ProviderSpec, Suite } from '../../core/types.js';
import '../../scorers/index.js';
import './assertions.js';
import { getScorer } from '../../scorers/registry.js';
import type { LoadOptions } from '../types.js';
import { type ApastraCase, checkCase, placeholders, renderTemplate, templateMessages } from './cases.js';
import { bothDigests, documentDigest, jsonlDigest, withoutDigestKey } from './digest.js';
import { type Doc, type DocPath, readDoc, readJsonl, type Where } from './documents.js';
import { checkEvaluator, type Evaluator, evaluatorSpecs } from './evaluators.js';
import { baselineHasMetrics, gatePaths } from './judge.js';
import { type ApastraNative, apastraNative } from './native.js';
import { type SchemaName, schemaProblems } from './schemas.js';
import {
  findWorkspaceRoot,
  inKindFolder,
  kindFiles,
  listKind,
  resolveRef,
  topLevelId,
  unreadableFiles,
  unsafeRef,
} from './workspace.js';

type Mode = 'compat' | 'default';

/** Reports every schema problem of a document as an error at its position; false if any. */
function checkSchema(name: SchemaName, doc: Doc, bag: DiagnosticBag, path: DocPath = []): boolean {
  const value = path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)?.[k], doc.value);
  const problems = schemaProblems(name, value);
  for (const p of problems) {
    const w = doc.at([...path, ...p.path]);
    bag.error(w.file, `not a valid apastra ${name.replace(/-/g, ' ')}: ${p.message}`, w);
  }
  return problems.length === 0;
}

/** Checks a file's stored `digest` (computed without that key); a mismatch is a warning naming both. */
function checkStoredDigest(doc: Doc, bag: DiagnosticBag): void {
  const stored = doc.py instanceof Map ? doc.py.get('digest') : undefined;
  if (typeof stored !== 'string') return;
  const actual = bothDigests((v) => documentDigest(withoutDigestKey(doc.py), v));
  if (!actual.includes(stored)) {
    const w = doc.at(['digest']);
    bag.warn(
      w.file,
      `stored digest ${stored} does not match the file's content, whose digest is ${actual[0]}`,
      w,
    );
  }
}

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** A model of `model_matrix` as an assay provider: `default` is the model given with -p (none here). */
function providerFor(model: string, where: Where): ProviderSpec | undefined {
  if (model === 'default') return undefined;
  return { id: model.includes(':') ? model : `openai:chat:${model}`, label: model, source: where };
}

/** The project config (`promptops.config.yaml|yml`) above the workspace, if any. */
function readConfig(root: string, bag: DiagnosticBag): { doc?: Doc; value: Record<string, unknown> } {
  let dir = root;
  for (;;) {
    for (const name of ['promptops.config.yaml', 'promptops.config.yml']) {
      const p = join(dir, name);
      if (existsSync(p)) {
        const doc = readDoc(p);
        checkSchema('promptops-config', doc, bag);
        return { doc, value: obj(doc.value) };
      }
    }
    const up = dirname(dir);
    if (up === dir) return { value: {} };
    dir = up;
  }
}

/** What `assay eval` loads from a path: a quick eval, a suite, or (a workspace root) the one --suite/--eval names. */
function target(path: string, options: LoadOptions): { kind: 'suite' | 'eval'; file: string; root: string } {
  const abs = resolve(path);
  const root = findWorkspaceRoot(abs);
  const isDir = statSync(abs).isDirectory();
  if (options.suiteId !== undefined && options.evalId !== undefined)
    throw new InputError('--suite and --eval: give one (a run is one suite or one quick eval)');
  if (!isDir) {
    if (options.suiteId !== undefined || options.evalId !== undefined)
      throw new InputError({
        file: displayPath(abs),
        message: `${options.suiteId !== undefined ? '--suite' : '--eval'} picks from a workspace folder; this is already one file`,
        severity: 'error',
      });
    const doc = readDoc(abs);
    const v = obj(doc.value);
    const quick = typeof v.prompt === 'string' && Array.isArray(v.cases);
    const kind = inKindFolder(abs, 'evals') || (!inKindFolder(abs, 'suites') && quick) ? 'eval' : 'suite';
    return { kind, file: abs, root: root ?? dirname(abs) };
  }
  if (!root)
    throw new InputError({
      file: displayPath(abs),
      message: 'no promptops/ folder here or above',
      severity: 'error',
    });
  const want = options.suiteId ?? options.evalId;
  const kind = options.evalId !== undefined ? 'eval' : 'suite';
  if (want === undefined) {
    const suites = listKind(root, 'suites');
    const evals = listKind(root, 'evals');
    const lines = [
      `an apastra workspace (${displayPath(join(root, 'promptops'))}): pick what to run with --suite ID or --eval ID`,
      `  suites: ${suites.length ? suites.map((s) => s.id).join(', ') : '(none)'}`,
      `  quick evals: ${evals.length ? evals.map((s) => s.id).join(', ') : '(none)'}`,
    ];
    throw new InputError({ file: displayPath(abs), message: lines.join('\n'), severity: 'error' });
  }
  const unsafe = unsafeRef(want);
  if (unsafe) throw new InputError(`--${kind} ${want}: the reference ${unsafe}`);
  const file = resolveRef(root, kind === 'suite' ? 'suites' : 'evals', want);
  if (!file) {
    const known = listKind(root, kind === 'suite' ? 'suites' : 'evals').map((s) => s.id);
    throw new InputError({
      file: displayPath(root),
      message: `--${kind} ${want}: no such ${kind === 'suite' ? 'suite' : 'quick eval'} (known: ${known.join(', ') || 'none'})`,
      severity: 'error',
    });
  }
  return { kind, file, root };
}

/** Loads an apastra quick eval or suite. */
export async function loadApastraSuite(path: string, options: LoadOptions): Promise<Suite> {
  if (options.mode !== undefined && options.mode !== 'compat')
    throw new InputError(
      `--mode ${options.mode}: apastra suites take --mode compat (judge-less fallbacks) or none`,
    );
  const mode: Mode = options.mode === 'compat' ? 'compat' : 'default';
  const t = target(path, options);
  const bag = new DiagnosticBag();
  const files: string[] = [t.file];
  const config = readConfig(t.root, bag);
  if (config.doc) files.push(config.doc.path);
  const suite =
    t.kind === 'eval'
      ? loadQuickEval(t.file, t.root, mode, config.value, bag)
      : loadSuiteFile(t.file, t.root, mode, config.value, bag, files);
  checkGateFiles(apastraNative.read(suite.native), bag, files);
  bag.throwIfErrors();
  for (const c of suite.cases)
    for (const spec of c.asserts) {
      const scorer = getScorer(spec.type);
      const problem = scorer?.validate?.(spec);
      const w = (spec.source ?? c.provenance?.source ?? { file: displayPath(t.file) }) as Where;
      if (problem) bag.error(w.file, problem, w);
      const doubt = scorer?.lint?.(spec);
      if (doubt) bag.warn(w.file, doubt, w);
    }
  bag.throwIfErrors();
  const contentHash = sha256(
    files.map((f) => `${relative(t.root, f)}\u0000${sha256(readText(f))}`).join('\n'),
  );
  suite.source = { path: t.file, contentHash, files: [...new Set(files)] };
  suite.warnings = bag.warnings;
  return suite;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** A case as assay runs it: apastra's rendering of the prompt, then one hole. */
function toCase(
  c: ApastraCase,
  template: unknown,
  refPrefix: string,
  params: Record<string, unknown> | undefined,
  bag: DiagnosticBag,
): Omit<Case, 'id'> | undefined {
  const rendered = renderTemplate(template, c.pyInputs);
  const messages = templateMessages(rendered);
  if (typeof messages === 'string') {
    bag.error(c.where.file, messages, c.where);
    return undefined;
  }
  return {
    ref: `${refPrefix}${c.caseId}`,
    description: c.caseId,
    vars: c.inputs,
    conversations: [{ messages: [...messages, { role: 'assistant', content: null }] }],
    asserts: [],
    metadata: { ...c.metadata, case_id: c.caseId },
    ...(params ? { preparation: { options: { params } } } : {}),
    provenance: { source: c.where },
  };
}

/** Sampling defaults of the project config (temperature, max_tokens) as provider parameters. */
function configParams(config: Record<string, unknown>): Record<string, unknown> | undefined {
  const d = obj(config.defaults);
  const params: Record<string, unknown> = {};
  if (typeof d.temperature === 'number') params.temperature = d.temperature;
  if (typeof d.max_tokens === 'number') params.max_tokens = d.max_tokens;
  return Object.keys(params).length ? params : undefined;
}

/** Template variables: one no case provides is an error; a case missing one is a warning (apastra sends `{{x}}` as written). */
function checkVariables(template: unknown, cases: ApastraCase[], where: Where, bag: DiagnosticBag): void {
  for (const name of placeholders(template)) {
    if (name !== name.trim() || name === '') {
      bag.warn(
        where.file,
        `placeholder "{{${name}}}" has spaces or is empty: apastra replaces only {{name}} written without spaces, so it is sent as written`,
        where,
      );
      continue;
    }
    const missing = cases.filter((c) => !c.pyInputs.some(([k]) => k === name));
    if (cases.length > 0 && missing.length === cases.length)
      bag.error(where.file, `template variable "${name}" is provided by no case's inputs`, where);
    else
      for (const c of missing)
        bag.warn(
          c.where.file,
          `case "${c.caseId}": no input "${name}"; apastra sends {{${name}}} as written`,
          c.where,
        );
  }
}

function dupCaseIds(cases: ApastraCase[], bag: DiagnosticBag): void {
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.caseId))
      bag.warn(c.where.file, `case_id "${c.caseId}" is used again; each case should have its own`, c.where);
    seen.add(c.caseId);
  }
}

function loadQuickEval(
  file: string,
  root: string,
  mode: Mode,
  config: Record<string, unknown>,
  bag: DiagnosticBag,
): Suite {
  const doc = readDoc(file);
  const v = obj(doc.value);
  // Case-level problems are checked case by case (with the documented deviations as warnings).
  for (const p of schemaProblems('quick-eval', { ...v, cases: [] })) {
    const w = doc.at(p.path);
    bag.error(w.file, `not a valid apastra quick eval: ${p.message}`, w);
  }
  if (!Array.isArray(v.cases)) bag.error(doc.file, 'expected "cases": a list of cases', doc.at([]));
  checkStoredDigest(doc, bag);
  const pyCases = doc.py instanceof Map ? doc.py.get('cases') : undefined;
  const cases: ApastraCase[] = [];
  (Array.isArray(v.cases) ? v.cases : []).forEach((raw, i) => {
    const c = checkCase(
      raw,
      Array.isArray(pyCases) ? (pyCases[i] as PyValue) : null,
      (p) => doc.at(['cases', i, ...p]),
      mode,
      bag,
    );
    if (c) cases.push(c);
  });
  if (Array.isArray(v.cases) && v.cases.length > 20)
    bag.warn(
      doc.file,
      `${v.cases.length} cases: apastra's policy is at most 20 per quick eval (graduate it to a suite); assay runs them all`,
      doc.at(['cases']),
    );
  dupCaseIds(cases, bag);
  checkVariables(v.prompt, cases, doc.at(['prompt']), bag);
  const params = configParams(config);
  const core: Omit<Case, 'id'>[] = [];
  for (const c of cases) {
    const k = toCase(c, v.prompt, '', params, bag);
    if (!k) continue;
    k.asserts = c.asserts;
    core.push(k);
  }
  const thresholds = obj(v.thresholds);
  const id = typeof v.id === 'string' ? v.id : basename(file, extname(file));
  const defaultsModel = obj(config.defaults).model;
  const providers =
    typeof defaultsModel === 'string'
      ? [providerFor(defaultsModel, doc.at([]))].filter((p): p is ProviderSpec => !!p)
      : [];
  const promptDigest = `sha256:${sha256(String(v.prompt ?? ''))}`;
  const native: ApastraNative = {
    kind: 'eval',
    root,
    suiteId: id,
    thresholds: numericThresholds(thresholds, doc, bag),
    metricVersions: {},
    modelMatrix: providers.length ? [String(defaultsModel)] : ['default'],
    inputRefs: { eval: relative(root, file) },
    digests: {
      prompt_digest: promptDigest,
      dataset_digest: documentDigest((doc.py instanceof Map ? doc.py.get('cases') : null) ?? null),
      evaluator_digest: `sha256:${sha256('inline-asserts')}`,
    },
    evaluatorRefs: ['inline-asserts'],
  };
  return baseSuite(id, `apastra quick eval ${id}`, root, file, core, providers, native, 1);
}

function numericThresholds(
  thresholds: Record<string, unknown>,
  doc: Doc,
  bag: DiagnosticBag,
  path: DocPath = ['thresholds'],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, t] of Object.entries(thresholds)) {
    if (typeof t === 'number') out[k] = t;
    else
      bag.error(
        doc.file,
        `threshold "${k}" must be a number, got ${JSON.stringify(t)}`,
        doc.at([...path, k]),
      );
  }
  return out;
}

function baseSuite(
  id: string,
  name: string,
  root: string,
  file: string,
  cases: Omit<Case, 'id'>[],
  providers: ProviderSpec[],
  native: ApastraNative,
  trials: number,
): Suite {
  return {
    id,
    name,
    format: 'apastra',
    source: { path: file, contentHash: '', files: [file] },
    basePath: root,
    prompts: [{ id: 'apastra', label: native.promptId ?? 'apastra', raw: '' }],
    providers,
    cases: assignCaseIds(cases),
    scoring: {},
    native,
    runDefaults: {
      ...(trials > 1 ? { repeat: trials } : {}),
      // The native run folder, in the workspace where apastra keeps runs (replaced by any -o).
      outputs: [{ path: `${join(root, 'promptops', 'runs')}/`, format: 'apastra' }],
    },
    warnings: [],
  };
}

/**
 * The regression gate's files, checked before the run: the policy against its schema, the
 * baseline as JSON (a baseline without metrics is said now, not after the run).
 */
function checkGateFiles(native: ApastraNative, bag: DiagnosticBag, files: string[]): void {
  const paths = gatePaths(native);
  if (!existsSync(paths.baseline)) return;
  let baseline: Doc | undefined;
  try {
    baseline = readDoc(paths.baseline);
    if (!baselineHasMetrics(baseline.py)) {
      bag.warn(
        baseline.file,
        'this baseline holds no scorecard (apastra baseline-schema shape: ids and a digest); the run will not be compared with it (save one with assay baseline save)',
        { line: 1 },
      );
      baseline = undefined;
    }
  } catch (err) {
    if (err instanceof InputError) for (const d of err.diagnostics) bag.error(d.file, d.message, d);
    else throw err;
  }
  if (!existsSync(paths.policy)) return;
  files.push(paths.policy);
  let policy: Doc | undefined;
  try {
    policy = readDoc(paths.policy);
    if (!checkSchema('regression-policy', policy, bag)) policy = undefined;
  } catch (err) {
    if (err instanceof InputError) for (const d of err.diagnostics) bag.error(d.file, d.message, d);
    else throw err;
  }
  if (baseline && policy) checkBaselineValues(baseline, policy, bag);
}

/**
 * compare.py subtracts the baseline's value of every metric a rule names, and its total_cost: a
 * value that is not a number (`"exact_match": "high"`) would fail the gate after every model call.
 */
function checkBaselineValues(baseline: Doc, policy: Doc, bag: DiagnosticBag): void {
  const numeric = (v: PyValue | undefined): boolean =>
    v === undefined || v === null || typeof v === 'boolean' || v instanceof PyInt || v instanceof PyFloat;
  const root = baseline.py as Map<string, PyValue>;
  const prefix = root.has('scorecard') ? ['scorecard'] : [];
  const scorecard = (root.has('scorecard') ? root.get('scorecard') : root) as Map<string, PyValue>;
  const metrics = scorecard.get('normalized_metrics') as Map<string, PyValue>;
  const rules = policy.py instanceof Map ? policy.py.get('rules') : undefined;
  const seen = new Set<string>();
  for (const rule of Array.isArray(rules) ? rules : []) {
    const metric = rule instanceof Map ? rule.get('metric') : undefined;
    if (typeof metric !== 'string' || seen.has(metric)) continue;
    seen.add(metric);
    if (numeric(metrics.get(metric))) continue;
    const w = baseline.at([...prefix, 'normalized_metrics', metric]);
    bag.error(
      w.file,
      `baseline metric "${metric}" is ${pyRepr(metrics.get(metric) as PyValue)}, not a number; the regression policy compares it (apastra's compare.py would fail on it)`,
      w,
    );
  }
  const manifest = root.get('manifest');
  const costPath =
    manifest instanceof Map && manifest.has('total_cost') ? ['manifest', 'total_cost'] : ['total_cost'];
  const cost =
    costPath.length === 2 ? (manifest as Map<string, PyValue>).get('total_cost') : root.get('total_cost');
  if (cost !== undefined && (cost === null || !numeric(cost))) {
    const w = baseline.at(costPath);
    bag.error(w.file, `baseline total_cost is ${pyRepr(cost)}, not a number (compare.py subtracts it)`, w);
  }
}

/** Reads a dataset reference: `<id>.jsonl`, or `<id>/dataset.jsonl` with its manifest (whose digest is the dataset's). */
function loadDataset(
  root: string,
  ref: string,
  where: Where,
  mode: Mode,
  bag: DiagnosticBag,
  files: string[],
): { cases: ApastraCase[]; values: PyValue[] } | undefined {
  const unsafe = unsafeRef(ref);
  if (unsafe) {
    bag.error(where.file, `dataset "${ref}": the reference ${unsafe}`, where);
    return undefined;
  }
  let file = resolveRef(root, 'datasets', ref);
  if (!file) {
    bag.error(
      where.file,
      `dataset "${ref}" not found (looked for promptops/datasets/${ref}.jsonl, promptops/datasets/${ref}/dataset.jsonl, and a manifest with that id)`,
      where,
    );
    return undefined;
  }
  let manifest: Doc | undefined;
  if (/dataset-manifest\.ya?ml$/.test(file)) {
    manifest = readDoc(file);
    files.push(file);
    file = join(dirname(file), 'dataset.jsonl');
  } else if (basename(file).startsWith('dataset.')) {
    for (const m of ['dataset-manifest.yaml', 'dataset-manifest.yml'])
      if (existsSync(join(dirname(file), m))) {
        manifest = readDoc(join(dirname(file), m));
        files.push(manifest.path);
      }
  }
  if (extname(file) !== '.jsonl') {
    bag.error(
      displayPath(file),
      'assay reads datasets as JSONL (one case per line), as apastra writes them',
      { line: 1 },
    );
    return undefined;
  }
  if (!existsSync(file)) {
    bag.error(where.file, `dataset "${ref}": ${displayPath(file)} does not exist`, where);
    return undefined;
  }
  files.push(file);
  const data = readJsonl(file);
  const values = data.rows.map((r) => r.py);
  if (manifest) {
    checkSchema('dataset-manifest', manifest, bag);
    const stored = obj(manifest.value).digest;
    const actual = bothDigests((v) => jsonlDigest(values, v));
    if (typeof stored === 'string' && !actual.includes(stored)) {
      const w = manifest.at(['digest']);
      bag.warn(
        w.file,
        `stored digest ${stored} does not match ${displayPath(file)}, whose digest is ${actual[0]}`,
        w,
      );
    }
  }
  if (data.rows.length === 0) bag.warn(data.file, 'the dataset has no cases', { line: 1 });
  const cases: ApastraCase[] = [];
  for (const row of data.rows) {
    const c = checkCase(row.value, row.py, () => ({ file: data.file, line: row.line }), mode, bag);
    if (c) cases.push(c);
  }
  return { cases, values };
}

/** The prompt a suite runs (§A1): its `prompt:` key, else the workspace's only prompt, else one named like the suite or its dataset. */
function suitePrompt(
  root: string,
  suite: Record<string, unknown>,
  doc: Doc,
  file: string,
  bag: DiagnosticBag,
): Doc | undefined {
  if (suite.prompt !== undefined) {
    const ref = suite.prompt;
    const w = doc.at(['prompt']);
    if (typeof ref !== 'string' || unsafeRef(ref)) {
      bag.error(
        w.file,
        `"prompt" must be a prompt id or file name${typeof ref === 'string' ? ` (the reference ${unsafeRef(ref)})` : ''}`,
        w,
      );
      return undefined;
    }
    const p = resolveRef(root, 'prompts', ref);
    if (!p) {
      bag.error(w.file, `prompt "${ref}" not found in promptops/prompts/`, w);
      return undefined;
    }
    return readDoc(p);
  }
  const specs = kindFiles(root, 'prompts').filter((p) => {
    const d = safeDoc(p);
    return d !== undefined && schemaProblems('prompt-spec', d.value).length === 0;
  });
  if (specs.length === 1) return readDoc(specs[0]);
  const names = new Set([
    basename(file, extname(file)),
    String(suite.id),
    ...(Array.isArray(suite.datasets) ? suite.datasets.map(String) : []),
  ]);
  const named = specs.filter((p) => names.has(topLevelId(p) ?? '') || names.has(basename(p, extname(p))));
  if (named.length === 1) return readDoc(named[0]);
  bag.error(
    doc.file,
    specs.length === 0
      ? 'no prompt spec in promptops/prompts/ for this suite to run'
      : `which prompt does this suite run? apastra's suite schema names none; add "prompt: <id>" (one of: ${specs.map((p) => topLevelId(p) ?? basename(p)).join(', ')})`,
    doc.at([]),
  );
  return undefined;
}

function safeDoc(p: string): Doc | undefined {
  try {
    return readDoc(p);
  } catch {
    return undefined;
  }
}

function loadSuiteFile(
  file: string,
  root: string,
  mode: Mode,
  config: Record<string, unknown>,
  bag: DiagnosticBag,
  files: string[],
): Suite {
  const doc = readDoc(file);
  const v = obj(doc.value);
  const valid = checkSchema('suite', doc, bag);
  checkStoredDigest(doc, bag);
  const id = typeof v.id === 'string' ? v.id : basename(file, extname(file));
  const prompt = valid ? suitePrompt(root, v, doc, file, bag) : undefined;
  if (prompt) {
    files.push(prompt.path);
    checkSchema('prompt-spec', prompt, bag);
    checkStoredDigest(prompt, bag);
  }
  const template = obj(prompt?.value).template;
  // Thresholds: the suite's, then the project config's for metrics the suite does not set.
  const thresholds = {
    ...numericThresholds(obj(obj(config).thresholds), doc, bag),
    ...numericThresholds(obj(v.thresholds), doc, bag),
  };
  const evaluators: Evaluator[] = [];
  const evaluatorValues: PyValue[] = [];
  (Array.isArray(v.evaluators) ? v.evaluators : []).forEach((ref, i) => {
    const w = doc.at(['evaluators', i]);
    const r = String(ref);
    const unsafe = unsafeRef(r);
    const p = unsafe ? undefined : resolveRef(root, 'evaluators', r);
    if (!p) {
      const broken = unsafe ? [] : unreadableFiles(root, 'evaluators');
      bag.error(
        w.file,
        `evaluator "${r}" ${unsafe ? `: the reference ${unsafe}` : 'not found in promptops/evaluators/ (by file name or id)'}${broken.length ? `; these files do not parse, so their ids are unknown: ${broken.map(displayPath).join(', ')}` : ''}`,
        w,
      );
      for (const b of broken.slice(0, 3)) {
        try {
          readDoc(b);
        } catch (err) {
          if (err instanceof InputError) for (const d of err.diagnostics) bag.error(d.file, d.message, d);
        }
      }
      return;
    }
    files.push(p);
    const e = readDoc(p);
    if (!checkSchema('evaluator', e, bag)) return;
    checkStoredDigest(e, bag);
    evaluatorValues.push(withoutDigestKey(e.py));
    const ev = obj(e.value);
    const evaluator: Evaluator = {
      id: String(ev.id),
      type: ev.type as Evaluator['type'],
      metrics: (ev.metrics as string[]).map(String),
      config: obj(ev.config),
      metricVersions: Object.fromEntries(
        Object.entries(obj(ev.metric_versions)).map(([k, x]) => [k, String(x)]),
      ),
      where: e.at([]),
      metricAt: (ev.metrics as unknown[]).map((_, j) => e.at(['metrics', j])),
    };
    checkEvaluator(evaluator, bag);
    evaluators.push(evaluator);
  });
  const allCases: { c: ApastraCase; dataset: string }[] = [];
  const datasetValues: PyValue[] = [];
  (Array.isArray(v.datasets) ? v.datasets : []).forEach((ref, i) => {
    const d = loadDataset(root, String(ref), doc.at(['datasets', i]), mode, bag, files);
    if (!d) return;
    datasetValues.push(...d.values);
    for (const c of d.cases) allCases.push({ c, dataset: String(ref) });
  });
  dupCaseIds(
    allCases.map((x) => x.c),
    bag,
  );
  if (prompt)
    checkVariables(
      template,
      allCases.map((x) => x.c),
      prompt.at(['template']),
      bag,
    );
  for (const metric of Object.keys(obj(v.thresholds)))
    if (!evaluators.some((e) => e.metrics.includes(metric)))
      bag.warn(
        doc.file,
        `threshold "${metric}": no evaluator of this suite emits it (it will be reported missing and fail)`,
        doc.at(['thresholds', metric]),
      );
  const params = configParams(config);
  const multi = (Array.isArray(v.datasets) ? v.datasets.length : 0) > 1;
  const core: Omit<Case, 'id'>[] = [];
  if (prompt)
    for (const { c, dataset } of allCases) {
      const k = toCase(c, template, multi ? `${dataset}/` : '', params, bag);
      if (!k) continue;
      k.metadata.dataset = dataset;
      k.asserts = [...evaluators.flatMap((e) => evaluatorSpecs(e, c, thresholds, bag)), ...c.asserts];
      core.push(k);
    }
  let matrix = Array.isArray(v.model_matrix) ? v.model_matrix.map(String) : [];
  if (matrix.length === 0 && typeof obj(config.defaults).model === 'string')
    matrix = [String(obj(config.defaults).model)];
  const providers = matrix
    .map((m, i) => providerFor(m, doc.at(['model_matrix', i])))
    .filter((p): p is ProviderSpec => !!p);
  if (providers.length > 0 && providers.length < matrix.length)
    bag.warn(
      doc.file,
      'model_matrix mixes "default" with named models: "default" is the model given with -p, which then replaces them all',
      doc.at(['model_matrix']),
    );
  const budgets = obj(v.budgets);
  if (budgets.cost !== undefined && budgets.cost_budget === undefined)
    bag.warn(
      doc.file,
      "budgets.cost: apastra's schema names it cost_budget; read as the cost budget (as its reference adapter does)",
      doc.at(['budgets', 'cost']),
    );
  if (budgets.time !== undefined)
    bag.warn(
      doc.file,
      'budgets.time is not enforced (apastra never enforces it either)',
      doc.at(['budgets', 'time']),
    );
  const costBudget =
    typeof budgets.cost_budget === 'number'
      ? budgets.cost_budget
      : typeof budgets.cost === 'number'
        ? budgets.cost
        : undefined;
  const metricVersions: Record<string, string> = {};
  for (const e of evaluators)
    for (const [m, ver] of Object.entries(e.metricVersions)) metricVersions[m] ??= ver;
  const trials = typeof v.trials === 'number' ? v.trials : 1;
  const native: ApastraNative = {
    kind: 'suite',
    root,
    suiteId: id,
    promptId: prompt ? String(obj(prompt.value).id) : undefined,
    thresholds,
    metricVersions,
    modelMatrix: matrix,
    inputRefs: {
      suite: relative(root, file),
      ...(prompt ? { prompt: relative(root, prompt.path) } : {}),
    },
    digests: {
      prompt_digest: prompt ? documentDigest(prompt.py) : `sha256:${sha256('')}`,
      dataset_digest: jsonlDigest(datasetValues),
      evaluator_digest: jsonlDigest(evaluatorValues),
    },
    evaluatorRefs: (Array.isArray(v.evaluators) ? v.evaluators : []).map(String),
    ...(costBudget !== undefined ? { costBudget } : {}),
    trials,
  };
  return baseSuite(id, String(v.name ?? id), root, file, core, providers, native, trials);
}
