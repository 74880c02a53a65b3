// A run's results reduced to one record per case × prompt × provider: its trials (`--repeat`, a
// format's own epochs) folded into pass counts, a mean score and the first output, so trials of one
// case are never counted as independent cases. Read from the run log only.
import { readManifest, readResults } from '../runlog/reader.js';
import { passAtK, passHatK } from './paired.js';

/** One case × prompt × provider of a run, its trials reduced. */
export interface CaseRecord {
  /** Pairing key: case identity, prompt label, provider. */
  key: string;
  caseRef: string;
  description?: string;
  vars: Record<string, unknown>;
  promptLabel: string;
  providerId: string;
  /**
   * The prompt's identity in its run, its position in the run's list of prompts (0-based) and
   * whether it has no label of its own (its label is made from its text): unlabeled prompts whose
   * text changed pair by position, and two prompts sharing a label stay apart.
   */
  promptId?: string;
  promptPosition?: number;
  promptUnlabeled?: boolean;
  trials: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  /** Mean score over the trials that were not skipped (errors score what they scored, usually 0). */
  meanScore: number;
  /** The first trial's output and reason (their first 600 characters), for showing a person what changed. */
  output: string | null;
  reason: string;
  /** Each judged (not skipped) trial, in trial order: passed, its score, whether it was an error. */
  outcomes?: TrialOutcome[];
}

/** One judged trial of a case. */
export interface TrialOutcome {
  pass: boolean;
  score: number;
  error: boolean;
}

/** A case's judged trials (made up from its counts for a record that does not list them). */
export function outcomesOf(c: CaseRecord): TrialOutcome[] {
  if (c.outcomes) return c.outcomes;
  const out: TrialOutcome[] = [];
  for (let i = 0; i < c.passed; i++) out.push({ pass: true, score: c.meanScore, error: false });
  for (let i = 0; i < c.failed; i++) out.push({ pass: false, score: c.meanScore, error: false });
  for (let i = 0; i < c.errors; i++) out.push({ pass: false, score: c.meanScore, error: true });
  return out;
}

/** Trials of a case that were judged (not skipped): a case with none was not judged at all. */
export function judgedTrials(c: CaseRecord): number {
  return c.trials - c.skipped;
}

/** Enough of an output or reason to show a person (a record per case must stay small). */
const EXCERPT_CHARS = 600;

function excerpt(text: string | null): string | null {
  return text !== null && text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/** The fraction of a case's judged trials that passed (errors count as not passed; skips are left out). */
export function passFraction(c: CaseRecord): number {
  const judged = c.trials - c.skipped;
  return judged > 0 ? c.passed / judged : 0;
}

/** Whether a case's trials disagree: some passed and some did not. */
export function isFlaky(c: CaseRecord): boolean {
  const judged = c.trials - c.skipped;
  return c.passed > 0 && c.passed < judged;
}

/** pass@k and pass^k of a case (unbiased, over its judged trials); undefined when k exceeds them. */
export function caseAtK(c: CaseRecord, k: number): { passAtK: number; passHatK: number } | undefined {
  const n = c.trials - c.skipped;
  if (k < 1 || k > n) return undefined;
  return { passAtK: passAtK(n, c.passed, k), passHatK: passHatK(n, c.passed, k) };
}

/**
 * Whether a prompt has no label of its own: its label is its text, or made from it (a file's name
 * and its text, or the text's start), as formats label a prompt the user did not name.
 */
export function isUnlabeledPrompt(p: { label: string; raw?: string }): boolean {
  if (p.raw === undefined || p.raw === '') return false;
  if (p.label === p.raw) return true;
  const start = p.raw.slice(0, 50);
  return start.length >= 8 && p.label.includes(start);
}

/** The run's prompts by id: position in the manifest's list and whether each is unlabeled. */
function promptsOf(runDir: string): Map<string, { position: number; unlabeled: boolean }> {
  let prompts: { id: string; label: string; raw?: string }[] = [];
  try {
    prompts = readManifest(runDir).suite?.prompts ?? [];
  } catch {
    // A run log without a readable manifest (reading its results reports that): prompts in the
    // order they appear, none taken as unlabeled.
  }
  return new Map(prompts.map((p, i) => [p.id, { position: i, unlabeled: isUnlabeledPrompt(p) }]));
}

/**
 * Reads a run directory's results (each job key once: a duplicated line never counts twice) and
 * reduces them per case × prompt × provider, in the order cases first appear. Prompts are told
 * apart by their id, so two prompts that share a label are two prompts.
 */
export async function readCaseRecords(runDir: string): Promise<Map<string, CaseRecord>> {
  const records = new Map<
    string,
    CaseRecord & { scoreSum: number; scored: number; firstTrial: number; byTrial: [number, TrialOutcome][] }
  >();
  const prompts = promptsOf(runDir);
  const seen = new Set<string>();
  for await (const r of readResults(runDir)) {
    if (seen.has(r.key)) continue;
    seen.add(r.key);
    const key = `${r.case.ref ?? r.caseId}\u0000${r.promptId ?? r.promptLabel}\u0000${r.providerId}`;
    let c = records.get(key);
    if (!c) {
      let prompt = prompts.get(r.promptId);
      if (!prompt) {
        prompt = { position: prompts.size, unlabeled: false };
        prompts.set(r.promptId, prompt);
      }
      c = {
        key,
        caseRef: r.case.ref ?? r.caseId,
        ...(r.case.description !== undefined ? { description: r.case.description } : {}),
        vars: r.case.vars ?? {},
        promptLabel: r.promptLabel,
        providerId: r.providerId,
        promptId: r.promptId ?? r.promptLabel,
        promptPosition: prompt.position,
        promptUnlabeled: prompt.unlabeled,
        trials: 0,
        passed: 0,
        failed: 0,
        errors: 0,
        skipped: 0,
        meanScore: 0,
        output: excerpt(r.output),
        reason: excerpt(r.reason) ?? '',
        scoreSum: 0,
        scored: 0,
        firstTrial: r.trial,
        byTrial: [],
      };
      records.set(key, c);
    }
    c.trials++;
    if (r.status === 'pass') c.passed++;
    else if (r.status === 'fail') c.failed++;
    else if (r.status === 'error') c.errors++;
    else c.skipped++;
    if (r.status !== 'skip') {
      c.scoreSum += r.score;
      c.scored++;
      c.byTrial.push([r.trial, { pass: r.status === 'pass', score: r.score, error: r.status === 'error' }]);
    }
    if (r.trial < c.firstTrial) {
      c.firstTrial = r.trial;
      c.output = excerpt(r.output);
      c.reason = excerpt(r.reason) ?? '';
    }
  }
  const out = new Map<string, CaseRecord>();
  for (const [key, c] of records) {
    const { scoreSum, scored, firstTrial: _first, byTrial, ...record } = c;
    record.meanScore = scored > 0 ? scoreSum / scored : 0;
    record.outcomes = byTrial.sort((a, b) => a[0] - b[0]).map(([, o]) => o);
    out.set(key, record);
  }
  return out;
}
