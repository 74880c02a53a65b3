// The generations a past run recorded, found again for the jobs of a suite as it is now, so they can
// be scored again without a model (`assay rescore`). Results pair by the case's stable identity ×
// prompt × provider × trial, so editing an assertion (which changes the case's content hash and
// its job keys) keeps every recorded answer.
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../core/errors.js';
import { sha256 } from '../core/hash.js';
import { askedContent } from '../core/ids.js';
import type { Case, Job, JobResult } from '../core/types.js';
import { type Generation, recordedGeneration } from '../engine/generate.js';
import { scanLines } from '../runlog/lines.js';
import { damagedLine, isResultLine, versioned } from '../runlog/reader.js';

interface LineRef {
  offset: number;
  length: number;
}

/** Pairs a job with a recorded result: the case's ref, the prompt, the provider column, the trial. */
function pairKey(caseRef: string, promptId: string, providerId: string, trial: number): string {
  return `${caseRef}\u0000${promptId}\u0000${providerId}\u0000${trial}`;
}

/**
 * A result line's case identity: its `caseRef`, or for a log written before refs existed, the
 * hash of its description and vars (what a case without a format id is known by).
 */
function recordedRef(r: JobResult): string {
  if (r.case.ref) return r.case.ref;
  return `h:${sha256(askedContent({ description: r.case.description, vars: r.case.vars ?? {}, asserts: [], metadata: {} })).slice(0, 12)}`;
}

/** Recorded results of a run, indexed by pair key (an offset per result, not the result). */
export class RecordedGenerations {
  private readonly index = new Map<string, LineRef>();
  /** Results whose key appeared more than once in the log: only the first counts. */
  duplicates = 0;
  private readonly fd: number;
  private buffer = Buffer.alloc(64 * 1024);
  private matched = new Set<string>();

  private constructor(
    readonly runDir: string,
    private readonly path: string,
  ) {
    this.fd = openSync(path, 'r');
  }

  /** Indexes a run directory's results.jsonl; a directory with no log is refused. */
  static async open(runDir: string): Promise<RecordedGenerations> {
    const path = join(runDir, 'results.jsonl');
    if (!existsSync(path))
      throw new InputError({
        file: path,
        message: 'no results.jsonl: not a run directory',
        severity: 'error',
      });
    const recorded = new RecordedGenerations(runDir, path);
    await recorded.build();
    return recorded;
  }

  private async build(): Promise<void> {
    const seenKeys = new Set<string>();
    await scanLines(this.path, (line, offset, lineNumber) => {
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = JSON.parse(line.toString('utf8')) as Record<string, unknown>;
      } catch {
        // scanLines gives only lines a newline ends: a torn last line (a kill) never reaches here.
        throw damagedLine(this.path, lineNumber);
      }
      if (!isResultLine(parsed)) throw damagedLine(this.path, lineNumber);
      const r = versioned(parsed, this.path, lineNumber);
      if (seenKeys.has(r.key)) {
        this.duplicates++;
        return;
      }
      seenKeys.add(r.key);
      const key = pairKey(recordedRef(r), r.promptId, r.providerId, r.trial);
      if (!this.index.has(key)) this.index.set(key, { offset, length: line.length });
    });
  }

  /** How many results the log holds (distinct pairs). */
  get size(): number {
    return this.index.size;
  }

  /** How many recorded results no job of the suite asked for (cases removed, prompts or providers renamed). */
  get unmatched(): number {
    return this.index.size - this.matched.size;
  }

  private keyOf(job: Job, testCase: Case): string {
    return pairKey(testCase.ref ?? job.caseId, job.promptId, job.providerId, job.trial);
  }

  /** Whether the run recorded an answer for this job. */
  has(job: Job, testCase: Case): boolean {
    const key = this.keyOf(job, testCase);
    if (!this.index.has(key)) return false;
    this.matched.add(key);
    return true;
  }

  /** The recorded result for a job (read back from disk), or undefined. */
  result(job: Job, testCase: Case): JobResult | undefined {
    const ref = this.index.get(this.keyOf(job, testCase));
    if (!ref) return undefined;
    if (ref.length > this.buffer.length) this.buffer = Buffer.alloc(ref.length);
    readSync(this.fd, this.buffer, 0, ref.length, ref.offset);
    const parsed = JSON.parse(this.buffer.toString('utf8', 0, ref.length)) as Record<string, unknown>;
    return versioned(parsed, this.path, 0);
  }

  /**
   * The generation to score for a job: the recorded answer, or the recorded failure when the run
   * got no usable answer (a provider error stays an error; there is nothing to score).
   */
  generation(job: Job, testCase: Case): { generation: Generation; startedAt: string } | undefined {
    const r = this.result(job, testCase);
    if (!r) return undefined;
    const generation = recordedGeneration(r, testCase);
    if (isGenerationError(r)) generation.error = r.error ?? r.reason;
    return { generation, startedAt: r.startedAt };
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * Whether a recorded error came from generation (no usable answer). Logs written before
 * `errorStage` existed: an error with no output was the provider's, one with output the scoring's.
 */
function isGenerationError(r: JobResult): boolean {
  if (r.status !== 'error') return false;
  if (r.errorStage) return r.errorStage === 'generation';
  return r.output === null;
}
