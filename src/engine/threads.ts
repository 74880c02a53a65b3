// Threads: cases that are turns of one conversation (Case.thread). Per provider and prompt, a
// thread's jobs run one after another in plan order, and a job whose prompt reads the thread
// (PromptTemplate.threadVar) sees the turns before it; a turn may also keep its output under a var
// (CaseThread.storeAs) that the thread's later turns see. Jobs of other threads run alongside.
import { surveyOf } from '../core/cases.js';
import type { Case, Job, JobResult, PromptTemplate, Suite, ThreadTurn } from '../core/types.js';

interface Thread {
  turns: ThreadTurn[];
  /** The vars kept by the turns so far (the latest turn to keep a name wins). */
  stored: Record<string, unknown>;
  /** Settles when the thread's last job entered so far has recorded its turn (or given up). */
  tail: Promise<void>;
}

/** A job's place in its thread: the turns before it, and how to record its own. */
export interface ThreadSlot {
  turns: ThreadTurn[];
  stored: Record<string, unknown>;
  /** Records the job's turn (undefined: it made none) and lets the thread's next job go. */
  leave(result: JobResult | undefined): void;
}

/**
 * The thread a job runs in, or undefined when it runs free: a turn of a thread whose prompt reads
 * the turns, or of an ordered thread (its turns keep vars).
 */
export function threadKeyOf(
  job: Job,
  testCase: Case,
  prompt: PromptTemplate | undefined,
): string | undefined {
  if (testCase.thread === undefined) return undefined;
  if (prompt?.threadVar === undefined && testCase.thread.ordered !== true) return undefined;
  if (testCase.thread.across === true) return JSON.stringify([testCase.thread.id]);
  return JSON.stringify([job.providerId, job.promptId, testCase.thread.id]);
}

/** What a finished job keeps under its `storeAs` var: its output, when it got a non-empty one. */
function storedOf(result: TurnSource): string | undefined {
  if (result.errorStage === 'generation' || !result.output) return undefined;
  return result.output;
}

function keep(thread: Thread, storeAs: string | undefined, result: TurnSource): void {
  const value = storeAs === undefined ? undefined : storedOf(result);
  if (storeAs !== undefined && value !== undefined) thread.stored = { ...thread.stored, [storeAs]: value };
}

/** Whether some case is a turn of an ordered thread (read in one pass; a streamed suite is not held). */
export function hasOrderedThreads(suite: Suite): boolean {
  for (const { c } of surveyOf(suite)) if (c.thread?.ordered === true) return true;
  return false;
}

/** What a thread keeps of a finished job: enough for its turn and the var it keeps. */
export interface TurnSource extends Pick<JobResult, 'errorStage' | 'prompt' | 'output'> {
  rawOutput: JobResult['answer']['rawOutput'];
}

/** The part of a recorded result its thread needs (a resume keeps these, not whole results). */
export function turnSourceOf(r: JobResult): TurnSource {
  return {
    errorStage: r.errorStage,
    prompt: r.prompt,
    rawOutput: r.answer.rawOutput,
    output: r.output,
  };
}

/** The turn a finished job adds to its thread; undefined when no prompt was sent. */
export function turnOf(result: TurnSource): ThreadTurn | undefined {
  if (result.errorStage === 'generation' && result.prompt.text === '' && result.prompt.messages.length === 0)
    return undefined;
  const text = result.prompt.text;
  let sent: unknown = text;
  try {
    sent = JSON.parse(text);
  } catch {
    // Not JSON: the prompt is its text.
  }
  let input: unknown = sent;
  if (Array.isArray(sent)) {
    const last = sent[sent.length - 1];
    input = (last !== null && typeof last === 'object' && (last as { content?: unknown }).content) || last;
  }
  const output = result.rawOutput !== undefined ? result.rawOutput : result.output;
  return { prompt: sent, input: input || text, output: output || '' };
}

/** The threads of one run. Jobs must enter in plan order (the scheduler starts them so). */
export class Threads {
  private readonly threads = new Map<string, Thread>();

  private thread(key: string): Thread {
    let thread = this.threads.get(key);
    if (!thread) {
      thread = { turns: [], stored: {}, tail: Promise.resolve() };
      this.threads.set(key, thread);
    }
    return thread;
  }

  /**
   * Adds the turn of a job finished in an earlier run (a resumed job that does not run again), in
   * plan order, with the var it keeps.
   */
  replay(key: string, result: TurnSource, storeAs?: string): void {
    const own = this.thread(key);
    // After the turns entered before it: it takes its place in the queue like a job that ran.
    const before = own.tail;
    own.tail = before.then(() => {
      const turn = turnOf(result);
      if (turn) own.turns.push(turn);
      keep(own, storeAs, result);
    });
  }

  /** Waits until the thread's earlier jobs are done, then gives this job its turns and kept vars. */
  async enter(key: string, storeAs?: string): Promise<ThreadSlot> {
    const thread = this.thread(key);
    const before = thread.tail;
    let release!: () => void;
    thread.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await before;
    const own = thread;
    let left = false;
    return {
      turns: own.turns.slice(),
      stored: own.stored,
      leave: (result) => {
        if (left) return;
        left = true;
        const source = result ? turnSourceOf(result) : undefined;
        const turn = source ? turnOf(source) : undefined;
        if (turn) own.turns.push(turn);
        if (source) keep(own, storeAs, source);
        release();
      },
    };
  }
}

/**
 * The case as a job of its thread sees it: the vars kept by earlier turns over its own (the vars
 * as written stay the test's), and the earlier turns under the prompt's thread variable.
 */
export function withTurns(testCase: Case, prompt: PromptTemplate, slot: Omit<ThreadSlot, 'leave'>): Case {
  let out = testCase;
  if (Object.keys(slot.stored).length > 0)
    out = {
      ...out,
      vars: { ...out.vars, ...slot.stored },
      provenance: { ...out.provenance, varsAsWritten: out.provenance?.varsAsWritten ?? out.vars },
    };
  if (prompt.threadVar === undefined || testCase.thread?.hidden) return out;
  return { ...out, vars: { ...out.vars, [prompt.threadVar]: slot.turns } };
}
