// Threads: cases that are turns of one conversation (Case.thread). Per provider and prompt, a
// thread's jobs run one after another in plan order, and a job whose prompt reads the thread
// (PromptTemplate.threadVar) sees the turns before it. Jobs of other threads run alongside.
import type { Case, Job, JobResult, PromptTemplate, ThreadTurn } from '../core/types.js';

interface Thread {
  turns: ThreadTurn[];
  /** Settles when the thread's last job entered so far has recorded its turn (or given up). */
  tail: Promise<void>;
}

/** A job's place in its thread: the turns before it, and how to record its own. */
export interface ThreadSlot {
  turns: ThreadTurn[];
  /** Records the job's turn (undefined: it made none) and lets the thread's next job go. */
  leave(result: JobResult | undefined): void;
}

/** The thread a job belongs to, or undefined when it is not a turn of one. */
export function threadKeyOf(job: Job, testCase: Case): string | undefined {
  if (testCase.thread === undefined) return undefined;
  return JSON.stringify([job.providerId, job.promptId, testCase.thread.id]);
}

/** The turn a finished job adds to its thread; undefined when no prompt was sent. */
export function turnOf(result: JobResult): ThreadTurn | undefined {
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

  /** Adds a turn made in an earlier run (a resumed job that does not run again), in plan order. */
  replay(key: string, turn: ThreadTurn): void {
    let thread = this.threads.get(key);
    if (!thread) {
      thread = { turns: [], tail: Promise.resolve() };
      this.threads.set(key, thread);
    }
    const own = thread;
    // After the turns entered before it: it takes its place in the queue like a job that ran.
    const before = own.tail;
    own.tail = before.then(() => {
      own.turns.push(turn);
    });
  }

  /** Waits until the thread's earlier jobs are done, then gives this job its turns. */
  async enter(key: string): Promise<ThreadSlot> {
    let thread = this.threads.get(key);
    if (!thread) {
      thread = { turns: [], tail: Promise.resolve() };
      this.threads.set(key, thread);
    }
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
      leave: (result) => {
        if (left) return;
        left = true;
        const turn = result ? turnOf(result) : undefined;
        if (turn) own.turns.push(turn);
        release();
      },
    };
  }
}

/** The case as a job of its thread sees it: with the earlier turns under the prompt's thread variable. */
export function withTurns(testCase: Case, prompt: PromptTemplate, turns: ThreadTurn[]): Case {
  if (prompt.threadVar === undefined || testCase.thread?.hidden) return testCase;
  return { ...testCase, vars: { ...testCase.vars, [prompt.threadVar]: turns } };
}
