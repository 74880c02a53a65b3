// Loads an ÈwéBench folder (or one category file) into assay's Suite: one case per test, its own
// messages, one assertion per eval method, and the ÈwéScore as a weighted score over categories.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { DiagnosticBag, InputError } from '../../core/errors.js';
import { sha256 } from '../../core/hash.js';
import { assignCaseIds } from '../../core/ids.js';
import type { Case, Message, Suite, SuiteScoring } from '../../core/types.js';
import '../../scorers/index.js';
import './ewe-quality.js';
import { displayPath, jsonProblem } from '../../core/positions.js';
import { getScorer } from '../../scorers/registry.js';
import type { LoadOptions } from '../types.js';
import { assertionFor, type Mode } from './assertions.js';
import {
  BENCHMARK_NAME,
  BENCHMARK_VERSION,
  CATEGORIES,
  categoryByKey,
  DEFAULT_SYSTEM_PROMPT,
  DEFAULT_TEMPERATURE,
  ERROR_TEXT,
  MAX_TOKENS,
  PASS_MARK,
} from './categories.js';
import { arrayElementOffsets, lineColAt } from './positions.js';
import { type CheckedTest, checkTest } from './tests.js';

export { type EweNative, eweNative } from './native.js';

import type { EweNative } from './native.js';

/** A category file to load. */
interface CategoryFile {
  key: string;
  path: string;
}

/** Loads an ÈwéBench suite. `options.categories` selects categories; `options.mode` is compat (default) or fixed. */
export async function loadEweBenchSuite(path: string, options: LoadOptions): Promise<Suite> {
  const mode: Mode = options.mode === 'fixed' ? 'fixed' : 'compat';
  const bag = new DiagnosticBag();
  const root = resolve(path);
  const files = categoryFiles(root, options.categories, bag);
  const cases: Omit<Case, 'id'>[] = [];
  const hash = [`mode=${mode}`];
  const counts = new Map<string, number>();
  for (const f of files) {
    const text = readFileSync(f.path, 'utf8');
    hash.push(`${basename(f.path)}\u0000${sha256(text)}`);
    const tests = parseCategory(f, text, mode, bag);
    counts.set(f.key, tests.length);
    for (const t of tests) cases.push(toCase(t.test, f.key, mode, t.where));
  }
  bag.throwIfErrors();
  const suiteCases = assignCaseIds(cases);
  validateAssertions(suiteCases, bag);
  bag.throwIfErrors();

  const weights: Record<string, number> = {};
  for (const c of CATEGORIES) weights[c.key] = c.weight;
  for (const f of files) if (!(f.key in weights)) weights[f.key] = 0;
  const scoring: SuiteScoring = {
    weightedScore: {
      name: 'ÈwéScore',
      groupBy: 'category',
      weights,
      scale: 100,
      roundGroup: 1,
      roundTotal: 1,
      unscoredErrors: mode === 'compat' ? 'exclude' : 'zero',
      // The tool counts a test passed on its rounded score, whatever text was scored.
      ...(mode === 'compat' ? { scoredErrorsPassAt: { threshold: PASS_MARK, digits: 3 } } : {}),
    },
    ...(mode === 'compat' ? { scoreErrorsAs: ERROR_TEXT } : {}),
    textOnly:
      mode === 'compat'
        ? 'the model answered with {what} and no text (content: null); the ÈwéBench tool would crash here (it treats the reply as a string), so the test has no score'
        : 'the model answered with {what} and no text (content: null); ÈwéBench tests score text only, so the test scores 0',
  };
  const native: EweNative = {
    benchmark: BENCHMARK_NAME,
    version: BENCHMARK_VERSION,
    mode,
    categories: [
      ...CATEGORIES.map((c) => ({
        key: c.key,
        name: c.name,
        weight: c.weight,
        tests: counts.get(c.key) ?? null,
      })),
      ...files
        .filter((f) => !categoryByKey(f.key))
        .map((f) => ({
          key: f.key,
          name: f.key,
          weight: 0,
          tests: counts.get(f.key) ?? null,
          known: false as const,
        })),
    ],
  };
  const contentHash = sha256(hash.join('\n'));
  return {
    id: contentHash.slice(0, 12),
    name: `${BENCHMARK_NAME} ${basename(root)}`,
    format: 'ewebench',
    source: { path: root, contentHash, files: files.map((f) => f.path) },
    basePath: statSync(root).isDirectory() ? root : dirname(root),
    prompts: [{ id: 'ewebench', label: 'ewebench', raw: '' }],
    providers: [],
    cases: suiteCases,
    scoring,
    native,
    warnings: bag.warnings,
  };
}

/** The category files to load, in the tool's order, honouring `--category`. */
function categoryFiles(root: string, selected: string[] | undefined, bag: DiagnosticBag): CategoryFile[] {
  if (!statSync(root).isDirectory()) {
    const key = basename(root, extname(root));
    if (selected && !selected.includes(key))
      throw new InputError({
        file: displayPath(root),
        message: `--category ${selected.join(', ')}: this file holds category "${key}" only`,
        severity: 'error',
      });
    if (!categoryByKey(key))
      bag.warn(
        displayPath(root),
        `"${key}" is not one of the ten ÈwéBench categories: its tests are the category "${key}", with no weight in the ÈwéScore (--output-format ewebench needs a file named after a category)`,
      );
    return [{ key, path: root }];
  }
  const testsDir = isDir(join(root, 'tests')) ? join(root, 'tests') : root;
  const present = new Set(readdirSync(testsDir).filter((n) => extname(n).toLowerCase() === '.json'));
  if (selected) {
    const unknown = selected.filter((k) => !categoryByKey(k));
    if (unknown.length > 0)
      throw new InputError(
        unknown.map((k) => ({
          file: displayPath(testsDir),
          message: `--category ${k}: unknown category; expected one of: ${CATEGORIES.map((c) => c.key).join(', ')}`,
          severity: 'error' as const,
        })),
      );
  }
  for (const name of [...present].sort()) {
    const key = basename(name, extname(name));
    if (!categoryByKey(key))
      bag.warn(
        displayPath(join(testsDir, name)),
        `not an ÈwéBench category file: ignored, as the ÈwéBench tool does`,
      );
  }
  const out: CategoryFile[] = [];
  for (const c of CATEGORIES) {
    if (selected && !selected.includes(c.key)) continue;
    const path = join(testsDir, `${c.key}.json`);
    if (present.has(`${c.key}.json`)) out.push({ key: c.key, path });
    else if (selected)
      bag.warn(displayPath(testsDir), `--category ${c.key}: no ${c.key}.json here; the category is skipped`);
  }
  if (out.length === 0)
    throw new InputError({
      file: displayPath(testsDir),
      message: `no ÈwéBench category file to run; expected tests/<category>.json for one of: ${CATEGORIES.map((c) => c.key).join(', ')}`,
      severity: 'error',
    });
  return out;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Parses and checks one category file; errors go to `bag`. */
function parseCategory(
  f: CategoryFile,
  text: string,
  mode: Mode,
  bag: DiagnosticBag,
): { test: CheckedTest; where: { file: string; line: number; col: number } }[] {
  const file = displayPath(f.path);
  // The tool opens files as utf-8 (not utf-8-sig), so json.load sees the mark and refuses it.
  if (text.startsWith('\ufeff')) {
    bag.error(
      file,
      "starts with a UTF-8 byte-order mark, which Python's json.load rejects (the ÈwéBench tool stops here); save the file without it",
      { line: 1, col: 1 },
    );
    return [];
  }
  const problem = jsonProblem(text);
  if (problem) {
    bag.error(file, problem.message, problem);
    return [];
  }
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value)) {
    bag.error(file, 'expected a JSON array of tests', { line: 1, col: 1 });
    return [];
  }
  const offsets = arrayElementOffsets(text);
  const out: { test: CheckedTest; where: { file: string; line: number; col: number } }[] = [];
  const seen = new Map<string, number>();
  value.forEach((raw, i) => {
    const where = { file, ...lineColAt(text, offsets[i] ?? 0) };
    const test = checkTest(raw, i, f.key, mode, bag, where);
    if (!test) return;
    const first = seen.get(test.id);
    if (first !== undefined)
      bag.warn(
        file,
        `test "${test.id}": the id is used by test ${first + 1} too; reports will show it twice`,
        where,
      );
    else seen.set(test.id, i);
    out.push({ test, where });
  });
  return out;
}

/** One case: the test's messages (or system + prompt), the tool's request parameters, one assertion. */
function toCase(
  test: CheckedTest,
  category: string,
  mode: Mode,
  where: { file: string; line: number; col: number },
): Omit<Case, 'id'> {
  const messages: Message[] = test.messages
    ? [...test.messages]
    : [
        { role: 'system', content: test.system ?? DEFAULT_SYSTEM_PROMPT },
        { role: 'user', content: test.prompt ?? '' },
      ];
  messages.push({ role: 'assistant', content: null });
  const method = test.eval_method ?? 'keywords';
  return {
    // ÈwéBench's own test id, within its category: pairs the test across runs.
    ref: `${category}/${test.id}`,
    description: test.description ? `${test.id}: ${test.description}` : test.id,
    vars: {},
    conversations: [{ messages }],
    asserts: [{ ...assertionFor(test, mode), source: where }],
    metadata: { category, test_id: test.idValue, eval_method: method },
    preparation: {
      options: { params: { temperature: test.temperature ?? DEFAULT_TEMPERATURE, max_tokens: MAX_TOKENS } },
    },
    scoring: { threshold: PASS_MARK, thresholdDigits: 3 },
    provenance: { source: where },
  };
}

/** Runs each assertion's own load-time check, so a bad value is refused before any model is called. */
function validateAssertions(cases: Case[], bag: DiagnosticBag): void {
  for (const c of cases) {
    for (const spec of c.asserts) {
      const problem = getScorer(spec.type)?.validate?.(spec);
      const where = spec.source ?? { file: '' };
      if (problem) bag.error(where.file, `test "${String(c.metadata.test_id)}": ${problem}`, where);
    }
  }
}
