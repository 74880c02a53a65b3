// The apastra format's entry in the format registry: a promptops workspace, one of its suites
// (`promptops/suites/*.yaml`) or quick evals (`promptops/evals/*.yaml`), recognised by the layout
// and by shape; the loader loads on demand.
import { extname } from 'node:path';
import type { SuiteFormat } from '../types.js';
import { findWorkspaceRoot, inKindFolder, quietYaml } from './workspace.js';

function shape(text: string): Record<string, unknown> | undefined {
  try {
    const v = quietYaml(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A quick eval (`id`, `prompt` text, `cases`) or a suite (`datasets`, `evaluators`, `model_matrix`). */
export function looksLikeApastra(path: string, text: string): boolean {
  if (!['.yaml', '.yml', '.json'].includes(extname(path).toLowerCase())) return false;
  const inLayout = inKindFolder(path, 'evals') || inKindFolder(path, 'suites');
  const v = shape(text);
  if (!v) return inLayout;
  const quick = typeof v.prompt === 'string' && Array.isArray(v.cases) && typeof v.id === 'string';
  const suite = Array.isArray(v.datasets) && Array.isArray(v.evaluators) && 'model_matrix' in v;
  return quick || suite || (inLayout && ('id' in v || 'cases' in v || 'datasets' in v));
}

/** apastra: a promptops workspace (with --suite ID / --eval ID), a suite file, or a quick-eval file. */
export const format: SuiteFormat = {
  starter: async () => (await import('./starter.js')).starter(),
  name: 'apastra',
  expects:
    'an apastra workspace (a folder with promptops/; pick with --suite ID or --eval ID), promptops/suites/<id>.yaml, or promptops/evals/<id>.yaml',
  options: ['mode', 'suiteId', 'evalId'],
  flags: [
    {
      name: 'suite',
      type: 'string',
      arg: 'ID',
      description: 'the suite of an apastra workspace to run (by file name or id)',
      load: { option: 'suiteId' },
    },
    {
      name: 'eval',
      type: 'string',
      arg: 'ID',
      description: 'the quick eval of an apastra workspace to run (by file name or id)',
      load: { option: 'evalId' },
    },
  ],
  // Any folder in a workspace (its root, promptops/ or below): formats tried before claim theirs first.
  detectDir: (dir) => (findWorkspaceRoot(dir) ? dir : undefined),
  detectFile: looksLikeApastra,
  async load(path, options) {
    return (await import('./load.js')).loadApastraSuite(path, options);
  },
  baseline: {
    refusal: async (runDir) => (await import('./compare.js')).baselineHook.refusal?.(runDir),
    save: async (runDir, savedAs, incomplete) =>
      (await import('./compare.js')).baselineHook.save?.(runDir, savedAs, incomplete),
  },
  policyCompare: {
    read: async (policy, baseline, candidate) =>
      (await import('./compare.js')).policyCompareHook.read(policy, baseline, candidate),
  },
  async gate(run) {
    return (await import('./gate.js')).apastraGate(run);
  },
};
