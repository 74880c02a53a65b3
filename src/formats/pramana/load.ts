// Loads pramana suites: one tier file, or a folder's tiers chosen with --tier (see manifest.ts).
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
// The scorers this format's cases use register themselves on import.
import '../../scorers/index.js';
import { DiagnosticBag, InputError } from '../../core/errors.js';
import { sha256, shortHash } from '../../core/hash.js';
import { assignCaseRefs } from '../../core/ids.js';
import { type Case, type PromptTemplate, SELF_GRADER, type Suite } from '../../core/types.js';
import { abortWarning, PRAMANA_PARAMS, thresholdWarning, toCase } from './cases.js';
import { pramanaSuiteHash } from './hash.js';
import { type Manifest, type ManifestTier, manifestLine, readManifest, selectTiers } from './manifest.js';
import { readTierFile } from './read.js';
import { unknownKeys, validateTest } from './test-case.js';

/** The version pramana's runner writes when nothing says otherwise (it hard-codes `v1.0`). */
const DEFAULT_VERSION = 'v1.0';

export { type PramanaNative, type PramanaTierFacts, pramanaNative } from './native.js';

import type { PramanaNative, PramanaTierFacts } from './native.js';

/** A pramana test has no template of its own: each case carries its message; this carries the parameters. */
const PROMPT: PromptTemplate = { id: 'pramana', label: 'pramana', raw: '', config: { ...PRAMANA_PARAMS } };

interface TierToLoad {
  name: string;
  path: string;
  /** The path as shown in messages. */
  shown: string;
  manifestTier?: ManifestTier;
}

/** Loads a pramana tier file or suite folder into a Suite (every bad line reported at once). */
export async function loadPramanaSuite(path: string, options: { tiers?: string[] } = {}): Promise<Suite> {
  const abs = resolve(path);
  const bag = new DiagnosticBag();
  let manifest: Manifest | undefined;
  let tiers: TierToLoad[];
  if (statSync(abs).isDirectory()) {
    manifest = readManifest(join(abs, 'manifest.toml'));
    tiers = selectTiers(manifest, options.tiers).map((t) => ({
      name: t.name,
      path: resolve(abs, t.file),
      shown: join(path, t.file),
      manifestTier: t,
    }));
  } else {
    const stem = basename(abs, extname(abs));
    const asked = options.tiers?.filter((t) => t !== 'all') ?? [];
    const other = asked.find((t) => t !== stem);
    if (other !== undefined)
      throw new InputError({
        file: path,
        message: `--tier ${other}: this file is the ${stem} tier; give the suite folder to choose among tiers`,
        severity: 'error',
      });
    tiers = [{ name: stem, path: abs, shown: path }];
  }

  const cases: Case[] = [];
  const facts: PramanaTierFacts[] = [];
  const digest: string[] = [];
  const files: string[] = manifest ? [manifest.path] : [];
  if (manifest) digest.push(sha256(manifest.text));
  const version = manifest?.version ?? DEFAULT_VERSION;
  for (const tier of tiers) {
    if (!existsSync(tier.path)) {
      bag.error(manifest?.path ?? tier.shown, `tiers.${tier.name}.file: no such file: ${tier.shown}`, {
        line: manifest ? manifestLine(manifest.text, tier.name, 'file') : undefined,
      });
      continue;
    }
    const text = readTierFile(tier.path, tier.shown);
    files.push(tier.path);
    digest.push(sha256(text.bytes));
    const jsonErrors = new Map(text.errors.map((e) => [e.line, e]));
    const seen = new Map<string, number>();
    let valid = text.errors.length === 0;
    for (const { line, value } of text.lines) {
      if (value === undefined) {
        const e = jsonErrors.get(line);
        if (e) bag.items.push(e);
        continue;
      }
      const where = { file: tier.shown, line };
      const { test, problems } = validateTest(value);
      for (const p of problems) bag.error(tier.shown, `${p.path}: ${p.message}`, { line });
      for (const k of unknownKeys(value))
        bag.warn(
          tier.shown,
          `${k}: not a pramana field (pramana ignores it, but it counts in the suite hash)`,
          { line },
        );
      if (!test) {
        valid = false;
        continue;
      }
      const firstLine = seen.get(test.id);
      let caseId = `${tier.name}/${test.id}`;
      if (firstLine !== undefined) {
        bag.warn(
          tier.shown,
          `id: "${test.id}" is used again (first on line ${firstLine}); pramana does not require unique ids`,
          { line },
        );
        caseId += `#${line}`;
      } else seen.set(test.id, line);
      for (const warning of [abortWarning(test, where), thresholdWarning(test, where)])
        if (warning) bag.items.push(warning);
      cases.push(toCase(test, tier.name, caseId, where));
    }
    const tests = text.lines.length;
    const declared = tier.manifestTier?.testCount;
    if (manifest && declared !== undefined && declared !== tests)
      bag.warn(
        manifest.path,
        `tiers.${tier.name}.test_count is ${declared}, but ${tier.shown} has ${tests} tests`,
        { line: manifestLine(manifest.text, tier.name, 'test_count') },
      );
    if (tests === 0) bag.warn(tier.shown, 'no tests in this tier');
    if (valid) {
      const suiteVersion = `${version}-${basename(tier.path, extname(tier.path))}`;
      const suiteHash = pramanaSuiteHash(text.lines.map((l) => l.value!));
      facts.push({ name: tier.name, file: tier.path, suiteVersion, suiteHash, tests });
    }
  }
  if (manifest) checkUnloadedTiers(manifest, tiers, bag);
  if (manifest) for (const w of manifest.warnings) bag.items.push(w);
  bag.throwIfErrors();

  const hashes = Object.fromEntries(facts.map((f) => [f.name, f.suiteHash]));
  const contentHash = sha256(digest.join('\n'));
  const native: PramanaNative = {
    tiers: facts,
    temperature: PRAMANA_PARAMS.temperature,
    seed: PRAMANA_PARAMS.seed,
  };
  return {
    id: shortHash(contentHash),
    name: `pramana ${version} ${facts.map((f) => f.name).join(' + ')}`,
    format: 'pramana',
    source: {
      path: abs,
      contentHash,
      ...(facts.length === 1 ? { nativeHash: facts[0].suiteHash } : { nativeHashes: hashes }),
      files,
    },
    basePath: manifest ? abs : dirname(abs),
    prompts: [PROMPT],
    providers: [],
    cases: assignCaseRefs(cases),
    scoring: { breakdowns: ['category', 'difficulty'] },
    grader: { id: SELF_GRADER },
    native: { pramana: native },
    warnings: bag.warnings,
  };
}

/** Checks the manifest's other tiers too: a missing file or a wrong test count is worth a warning. */
function checkUnloadedTiers(manifest: Manifest, loaded: TierToLoad[], bag: DiagnosticBag): void {
  const dir = dirname(manifest.path);
  for (const t of manifest.tiers) {
    if (loaded.some((l) => l.name === t.name)) continue;
    const file = resolve(dir, t.file);
    const line = manifestLine(manifest.text, t.name, 'file');
    if (!existsSync(file)) {
      bag.warn(manifest.path, `tiers.${t.name}.file: no such file: ${t.file}`, { line });
      continue;
    }
    if (t.testCount === undefined) continue;
    let tests: number;
    try {
      tests = readTierFile(file, t.file).lines.length;
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      bag.warn(manifest.path, `tiers.${t.name}: ${err.message}`, { line });
      continue;
    }
    if (tests !== t.testCount)
      bag.warn(
        manifest.path,
        `tiers.${t.name}.test_count is ${t.testCount}, but ${t.file} has ${tests} tests`,
        {
          line: manifestLine(manifest.text, t.name, 'test_count'),
        },
      );
  }
}
