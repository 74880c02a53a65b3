// Cross-row assertions (promptfoo's select-best and max-score, spec §5.5): they judge every output
// of one case and trial together, so the engine holds those rows back until the whole group is
// done, applies the comparison, and only then hands the rows to the run log.
import type { AssertionSpec, Case, JobResult, Verdict } from '../core/types.js';
import { getScorer } from '../scorers/registry.js';
import { type CompareRow, type Grader, GraderError, ScorerInputError } from '../scorers/types.js';
import { renderAssertionValue } from '../template/render.js';
import { isComparing } from './score.js';

/** Whether a case has assertions judged across its rows (its jobs then run as one group). */
export function hasComparisons(testCase: Case): boolean {
  return testCase.asserts.some(isComparing);
}

/** What applying comparisons needs besides the rows. */
export interface CompareContext {
  env?: Record<string, string | undefined>;
  basePath?: string;
  /** The grader for an assertion, or undefined when none is configured. */
  grader?: (spec: AssertionSpec) => Promise<Grader | undefined>;
}

function label(spec: AssertionSpec): string {
  return spec.negate ? `not-${spec.type}` : spec.type;
}

/**
 * Applies a case's cross-row assertions to the rows of one group (in plan order), in place. A row
 * whose comparison fails fails too, and takes the comparison's score (0) and reason; the winner
 * keeps its own score. A comparison that cannot be made turns every row of the group into an error.
 */
export async function applyComparisons(
  testCase: Case,
  rows: JobResult[],
  ctx: CompareContext,
): Promise<void> {
  for (const spec of testCase.asserts) {
    const scorer = getScorer(spec.type);
    if (!scorer?.compare) continue;
    let results: Awaited<ReturnType<NonNullable<typeof scorer.compare>>>;
    try {
      const grader = scorer.graded || scorer.usesGrader ? await ctx.grader?.(spec) : undefined;
      if (scorer.graded && !grader)
        throw new ScorerInputError('no grader configured (give --grader, or a provider for this assertion)');
      const compareRows: CompareRow[] = rows.map((r) => ({
        output: r.output ?? '',
        outputValue: r.output ?? '',
        errored: r.status === 'error',
        verdicts: r.verdicts,
        prompt: r.prompt.text,
      }));
      results = await scorer.compare({
        spec,
        value: renderAssertionValue(spec.value, testCase.vars, ctx.env),
        rows: compareRows,
        vars: testCase.vars,
        basePath: ctx.basePath,
        grader,
      });
      if (results.length !== rows.length)
        throw new Error(`returned ${results.length} verdicts for ${rows.length} outputs`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const reason =
        err instanceof ScorerInputError || err instanceof GraderError
          ? `${label(spec)}: ${message}`
          : `${label(spec)} threw: ${message}`;
      for (const r of rows) {
        r.status = 'error';
        r.score = 0;
        r.reason = reason;
        r.error = reason;
      }
      return;
    }
    results.forEach((result, i) => {
      const row = rows[i];
      const verdict: Verdict = {
        type: label(spec),
        pass: result.pass,
        score: result.score,
        reason: result.reason,
        weight: spec.weight ?? 1,
      };
      if (result.details) verdict.details = result.details;
      row.verdicts = [...row.verdicts, verdict];
      if (result.pass || row.status === 'error') return;
      row.status = 'fail';
      row.score = result.score;
      row.reason = result.reason;
    });
  }
}

/** A complete group: its case and its rows in plan order. */
export interface Ready {
  testCase: Case;
  rows: JobResult[];
}

interface Group {
  testCase: Case;
  /** Results by position in the plan; undefined while the job runs. */
  rows: (JobResult | undefined)[];
  done: number;
  /** No more jobs of this group will be scheduled. */
  closed: boolean;
  /** The run stopped before the whole group was scheduled: its rows are left for a resume. */
  abandoned: boolean;
}

/**
 * Holds back the rows of grouped cases until every job of the group has finished. The scheduler
 * tells it which jobs it starts (groups are contiguous in plan order, so at most a few groups are
 * open at once) and when the plan has moved past a group.
 */
export class GroupBuffer {
  private readonly groups = new Map<string, Group>();
  private open: string | undefined;

  /**
   * Records that a job of a grouped case starts; returns its position in the group. A job of
   * another group (or none) must be preceded by {@link close}.
   */
  start(group: string, testCase: Case): number {
    let g = this.groups.get(group);
    if (!g) {
      g = { testCase, rows: [], done: 0, closed: false, abandoned: false };
      this.groups.set(group, g);
    }
    this.open = group;
    g.rows.push(undefined);
    return g.rows.length - 1;
  }

  /** The group jobs are being started for, if any. */
  get openGroup(): string | undefined {
    return this.open;
  }

  /**
   * The plan moved past the open group: no more of its jobs will start. Returns the group when
   * its jobs have all finished already (it is then complete), else undefined.
   */
  close(): Ready | undefined {
    if (this.open === undefined) return undefined;
    const key = this.open;
    this.open = undefined;
    const g = this.groups.get(key);
    if (!g) return undefined;
    g.closed = true;
    return this.takeIfReady(key, g);
  }

  /** The run stops scheduling: the open group will never be whole, so its rows are dropped. */
  abandon(): void {
    if (this.open === undefined) return;
    const g = this.groups.get(this.open);
    if (g) {
      g.abandoned = true;
      if (g.done === g.rows.length) this.groups.delete(this.open);
    }
    this.open = undefined;
  }

  /** Records a finished job; returns its group when this completes a closed group. */
  finish(group: string, position: number, result: JobResult): Ready | undefined {
    const g = this.groups.get(group);
    if (!g) return undefined;
    g.rows[position] = result;
    g.done++;
    if (g.abandoned) {
      if (g.done === g.rows.length) this.groups.delete(group);
      return undefined;
    }
    return g.closed ? this.takeIfReady(group, g) : undefined;
  }

  private takeIfReady(key: string, g: Group): Ready | undefined {
    if (g.done < g.rows.length) return undefined;
    this.groups.delete(key);
    return { testCase: g.testCase, rows: g.rows as JobResult[] };
  }

  /** Groups whose rows will never be complete (left for a resume); for the final count. */
  pendingRows(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.done;
    return n;
  }
}
