// The generation stage: a job's conversations sent to its provider — every hole of every
// conversation filled in order, every repetition run — into a Generation, before any scoring.
// Scoring (engine/judge.ts) reads only the Generation, so a recorded one can be scored again
// without a model (`assay rescore`).
import { nonTextOf, recordedAnswer } from '../core/answer.js';
import { messageText } from '../core/messages.js';
import type {
  Answer,
  Case,
  ConversationRun,
  JobResult,
  Message,
  PromptTemplate,
  RunTranscript,
  StreamTiming,
  TokenUsage,
} from '../core/types.js';
import type { ProviderResponse } from '../providers/types.js';
import { type Caller, callWithCache } from './call.js';
import { buildPrompt } from './prompt.js';

export type { RunTranscript } from '../core/types.js';

/** What generation produced for one job: the model's answers, before transforms and scoring. */
export interface Generation {
  /** What was sent for the final answer: its prompt text and messages. */
  prompt: { text: string; messages: Message[] };
  /**
   * The final answer (the last hole of the last run) as assertions see it: derived from the
   * structured answer by the suite's output rule, or the plain text of a compatibility-path provider.
   */
  output: string | null;
  /** The final answer as a value (an object for tool calls under promptfoo's rule; a case's fixed output may be one). */
  outputValue: unknown;
  /** The final answer as it came, when its provider returned it structured (absent: a plain-text answer). */
  answer?: Answer;
  /** Every run, when the case is more than one hole or run; absent for a plain case. */
  runs?: ConversationRun[];
  /** Named hole completions of the last run. */
  outputs?: Record<string, string>;
  /** Every run with its holes filled (not recorded: rebuilt from the case and `runs`). */
  transcripts: RunTranscript[];
  latencyMs: number;
  /** Time to first token and tokens per second of a streamed answer (the first call's, for several). */
  stream?: StreamTiming;
  usage?: TokenUsage;
  cost?: number;
  /** The finish reason assertions see (the rule's: the answer's own, unless its format's tool reports none). */
  finishReason?: string;
  cached?: boolean;
  attempts?: number;
  logProbs?: number[];
  /** What the final answer had instead of text, when it had none (`tool calls`, `a refusal`, `nothing`). */
  nonText?: string;
  /** The provider failed (after its retries): no usable answer. */
  error?: string;
  /** Continuing the run is pointless (bad credentials). */
  fatal?: boolean;
}

/** The hole positions of a conversation: its `content: null` assistant messages, or one implied at the end. */
export function holesOf(messages: Message[]): { messages: Message[]; holes: number[] } {
  const holes: number[] = [];
  for (let i = 0; i < messages.length; i++)
    if (messages[i].role === 'assistant' && messages[i].content === null) holes.push(i);
  if (holes.length > 0) return { messages, holes };
  return { messages: [...messages, { role: 'assistant', content: null }], holes: [messages.length] };
}

/** The number of runs a case makes: the sum over its conversations of their repetitions. */
function runSlots(testCase: Case): { conversation: number; repetition: number }[] {
  const slots: { conversation: number; repetition: number }[] = [];
  const conversations = testCase.conversations ?? [];
  for (let c = 0; c < conversations.length; c++) {
    const reps = Math.max(1, Math.floor(conversations[c].repetitions ?? 1));
    for (let r = 0; r < reps; r++) slots.push({ conversation: c, repetition: r });
  }
  return slots;
}

/** Whether a case is plain: one run of one conversation with a single hole (or a prompt template). */
function isPlain(testCase: Case): boolean {
  const conversations = testCase.conversations;
  if (!conversations || conversations.length === 0) return true;
  if (conversations.length > 1 || (conversations[0].repetitions ?? 1) > 1) return false;
  return holesOf(conversations[0].messages).holes.length === 1;
}

/** Fills a conversation's holes with completions (as many as given), for transcripts and context. */
function fill(messages: Message[], holes: number[], completions: string[]): Message[] {
  const out = messages.slice();
  for (let h = 0; h < completions.length && h < holes.length; h++) {
    const hole = messages[holes[h]];
    out[holes[h]] = {
      role: 'assistant',
      content: completions[h],
      ...(hole.variable ? { variable: hole.variable } : {}),
    };
  }
  return out;
}

function namedOutputs(messages: Message[], holes: number[], completions: string[]): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (let h = 0; h < completions.length && h < holes.length; h++) {
    const variable = messages[holes[h]].variable;
    if (variable) outputs[variable] = completions[h];
  }
  return outputs;
}

/** The text a provider that echoes (and reports) sees as "the prompt": the last user message's. */
function promptText(messages: Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i].role === 'user') return messageText(messages[i].content);
  return '';
}

/** Sums what several calls cost and took; the last call's finish reason stands. */
class Totals {
  latencyMs = 0;
  usage?: TokenUsage;
  cost?: number;
  attempts?: number;
  cached = true;
  finishReason?: string;
  logProbs?: number[];
  nonText?: string;
  stream?: StreamTiming;

  add(r: ProviderResponse, read: AnswerRead): void {
    this.latencyMs += r.latencyMs;
    if (r.stream && !this.stream) this.stream = r.stream;
    if (r.usage) {
      this.usage ??= {};
      const u = this.usage;
      for (const k of ['prompt', 'completion', 'total'] as const)
        if (r.usage[k] !== undefined) u[k] = (u[k] ?? 0) + (r.usage[k] as number);
    }
    if (r.cost !== undefined) this.cost = (this.cost ?? 0) + r.cost;
    if (r.attempts !== undefined) this.attempts = (this.attempts ?? 0) + r.attempts;
    if (!r.cached) this.cached = false;
    this.finishReason = read.finishReason;
    this.logProbs = r.logProbs;
    this.nonText = read.nonText;
  }
}

/** A response's answer as the caller's output rule reads it. */
interface AnswerRead {
  output: string | null;
  value: unknown;
  finishReason: string | undefined;
  nonText: string | undefined;
}

/**
 * What a response's answer reads as: a structured answer through the suite's output rule (with
 * the job's parameters); a compatibility-path answer as its plain text.
 */
function readAnswer(
  r: ProviderResponse,
  caller: Pick<Caller, 'rule' | 'config'>,
  params: Record<string, unknown>,
): AnswerRead {
  const answer = r.answer;
  if (answer === undefined) {
    const output = r.output ?? null;
    return { output, value: output, finishReason: r.finishReason, nonText: r.nonText };
  }
  const d = caller.rule.derive(answer, { config: caller.config, params });
  return { output: d.output, value: d.value, finishReason: d.finishReason, nonText: nonTextOf(answer) };
}

/** The parameters a job's calls carry: its prompt's config, then the case's own (as the rule reads them too). */
export function jobParams(testCase: Case, prompt: PromptTemplate): Record<string, unknown> {
  return { ...(prompt.config ?? {}), ...(testCase.preparation?.options?.params ?? {}) };
}

/**
 * A recorded generation's final answer read again by the suite's rule (`assay rescore`): its
 * output, value and finish reason re-derived from the structure the run log kept, so scorers and a
 * format's parity stay one rule. A generation with no structured answer is left as recorded.
 */
export function rederive(
  generation: Generation,
  caller: Pick<Caller, 'rule' | 'config'>,
  params: Record<string, unknown>,
): void {
  const answer = generation.answer;
  if (answer === undefined) return;
  const d = caller.rule.derive(answer, { config: caller.config, params });
  generation.output = d.output;
  generation.outputValue = d.value;
  generation.finishReason = d.finishReason;
  const nonText = nonTextOf(answer);
  if (nonText !== undefined) generation.nonText = nonText;
}

/**
 * Generates a job's answers. A plain case is one call, exactly as before; a case with several holes
 * or runs makes one call per hole per run, in order, stopping at the first provider error.
 */
export async function generate(
  testCase: Case,
  prompt: PromptTemplate,
  trial: number,
  caller: Caller,
  env: Record<string, string | undefined>,
): Promise<Generation> {
  const params = jobParams(testCase, prompt);
  if (isPlain(testCase)) {
    const { text, messages } = buildPrompt(testCase, prompt, env);
    if (testCase.replay?.output !== undefined) {
      const value = testCase.replay.output;
      const output =
        typeof value === 'string' || value === null ? (value as string | null) : JSON.stringify(value);
      return { prompt: { text, messages }, output, outputValue: value, transcripts: [], latencyMs: 0 };
    }
    const response = await callWithCache(caller, trial, {
      prompt: text,
      messages,
      params,
      vars: testCase.vars,
      signal: caller.hardSignal,
    });
    return fromResponse({ text, messages }, response, readAnswer(response, caller, params));
  }
  if (testCase.replay?.runs !== undefined) return recordedRuns(testCase);
  return generateRuns(testCase, trial, caller, params);
}

/** A case's recorded completions standing in for its provider: the runs as a live run would record them. */
function recordedRuns(testCase: Case): Generation {
  const conversations = testCase.conversations ?? [];
  const recorded = testCase.replay?.runs ?? [];
  const runs: ConversationRun[] = [];
  const transcripts: RunTranscript[] = [];
  let lastPrompt: Generation['prompt'] = { text: '', messages: [] };
  // The recorded answers cannot stand for this case's conversations: an error, with the runs so far.
  const unfit = (why: string): Generation => ({
    prompt: lastPrompt,
    output: null,
    outputValue: null,
    transcripts,
    runs,
    latencyMs: 0,
    error: `the recorded answers do not fit the case: ${why}`,
  });
  const slots = runSlots(testCase);
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i];
    const { messages, holes } = holesOf(conversations[slot.conversation].messages);
    const completions = recorded[i] ?? [];
    if (completions.length !== holes.length)
      return unfit(
        `run ${i + 1} has ${holes.length} hole(s) and ${completions.length} recorded completion(s)`,
      );
    const context = fill(messages, holes, completions).slice(0, holes[holes.length - 1]);
    lastPrompt = { text: promptText(context), messages: context };
    runs.push(runOf(slot, messages, holes, completions));
    transcripts.push(transcriptOf(slot, messages, holes, completions));
  }
  if (recorded.length !== slots.length) return unfit(`${slots.length} run(s), ${recorded.length} recorded`);
  const last = runs[runs.length - 1];
  const output = last ? last.completions[last.completions.length - 1] : null;
  const generation: Generation = {
    prompt: lastPrompt,
    output,
    outputValue: output,
    runs,
    transcripts,
    latencyMs: 0,
  };
  if (last?.outputs) generation.outputs = last.outputs;
  return generation;
}

function fromResponse(prompt: Generation['prompt'], r: ProviderResponse, read: AnswerRead): Generation {
  const generation: Generation = {
    prompt,
    output: read.output,
    outputValue: read.value,
    transcripts: [],
    latencyMs: r.latencyMs,
    usage: r.usage,
    cost: r.cost,
    finishReason: read.finishReason,
    cached: r.cached,
    attempts: r.attempts,
  };
  if (r.answer !== undefined) generation.answer = r.answer;
  if (r.logProbs !== undefined) generation.logProbs = r.logProbs;
  if (r.stream) generation.stream = r.stream;
  if (read.nonText !== undefined) generation.nonText = read.nonText;
  if (r.error !== undefined) generation.error = r.error;
  if (r.fatal) generation.fatal = true;
  return generation;
}

async function generateRuns(
  testCase: Case,
  trial: number,
  caller: Caller,
  params: Record<string, unknown>,
): Promise<Generation> {
  const conversations = testCase.conversations ?? [];
  const totals = new Totals();
  let lastAnswer: Answer | undefined;
  const runs: ConversationRun[] = [];
  const transcripts: RunTranscript[] = [];
  let lastPrompt: Generation['prompt'] = { text: '', messages: [] };
  for (const slot of runSlots(testCase)) {
    const { messages, holes } = holesOf(conversations[slot.conversation].messages);
    const completions: string[] = [];
    for (const hole of holes) {
      const context = fill(messages.slice(0, hole), holes, completions);
      const text = promptText(context);
      lastPrompt = { text, messages: context };
      const response = await callWithCache(
        caller,
        trial,
        { prompt: text, messages: context, params, vars: testCase.vars, signal: caller.hardSignal },
        slot.repetition,
      );
      const read = readAnswer(response, caller, params);
      totals.add(response, read);
      if (response.error !== undefined || read.output === null) {
        // No answer to fill this hole with: the runs so far are kept, the job is an error (or, for
        // a null answer, scored as having no output).
        const failed = Object.assign(fromResponse(lastPrompt, response, read), summary(totals));
        failed.runs = runs;
        failed.transcripts = transcripts;
        failed.error = response.error;
        return failed;
      }
      completions.push(read.output);
      lastAnswer = response.answer;
    }
    runs.push(runOf(slot, messages, holes, completions));
    transcripts.push(transcriptOf(slot, messages, holes, completions));
  }
  const last = runs[runs.length - 1];
  const output = last ? last.completions[last.completions.length - 1] : null;
  const generation: Generation = {
    prompt: lastPrompt,
    output,
    outputValue: output,
    runs,
    transcripts,
    ...summary(totals),
  };
  if (lastAnswer !== undefined) generation.answer = lastAnswer;
  if (last?.outputs) generation.outputs = last.outputs;
  return generation;
}

function summary(t: Totals): Omit<Generation, 'prompt' | 'output' | 'outputValue' | 'transcripts'> {
  const out: Omit<Generation, 'prompt' | 'output' | 'outputValue' | 'transcripts'> = {
    latencyMs: t.latencyMs,
    cached: t.cached,
  };
  if (t.usage) out.usage = t.usage;
  if (t.cost !== undefined) out.cost = t.cost;
  if (t.attempts !== undefined) out.attempts = t.attempts;
  if (t.finishReason !== undefined) out.finishReason = t.finishReason;
  if (t.logProbs !== undefined) out.logProbs = t.logProbs;
  if (t.nonText !== undefined) out.nonText = t.nonText;
  if (t.stream) out.stream = t.stream;
  return out;
}

/** A run of a conversation as the result records it: its completions, and the named ones. */
function runOf(
  slot: { conversation: number; repetition: number },
  messages: Message[],
  holes: number[],
  completions: string[],
): ConversationRun {
  const run: ConversationRun = { conversation: slot.conversation, repetition: slot.repetition, completions };
  const outputs = namedOutputs(messages, holes, completions);
  if (Object.keys(outputs).length > 0) run.outputs = outputs;
  return run;
}

function transcriptOf(
  slot: { conversation: number; repetition: number },
  messages: Message[],
  holes: number[],
  completions: string[],
): RunTranscript {
  return {
    conversation: slot.conversation,
    repetition: slot.repetition,
    messages: fill(messages, holes, completions),
    output: completions[completions.length - 1] ?? '',
    outputs: namedOutputs(messages, holes, completions),
    completions,
  };
}

/**
 * The Generation a recorded result stands for (re-scoring without a model): its answer before
 * transforms, its runs, and the transcripts rebuilt from the case's conversations.
 */
export function recordedGeneration(result: JobResult, testCase: Case): Generation {
  const answer = result.answer;
  const output = answer.rawOutput !== undefined ? answer.rawOutput : result.output;
  const structured = recordedAnswer(answer, output);
  const replayed = testCase.replay?.output;
  const generation: Generation = {
    prompt: result.prompt,
    output,
    outputValue: replayed !== undefined ? replayed : output,
    transcripts: [],
    latencyMs: answer.latencyMs,
    usage: answer.usage,
    cost: answer.cost,
    finishReason: answer.finishReason,
    cached: answer.cached,
    attempts: answer.attempts,
  };
  if (structured !== undefined) generation.answer = structured;
  if (answer.logProbs !== undefined) generation.logProbs = answer.logProbs;
  if (answer.stream) generation.stream = answer.stream;
  if (answer.runs) {
    generation.runs = answer.runs;
    const conversations = testCase.conversations ?? [];
    for (const run of answer.runs) {
      const conversation = conversations[run.conversation];
      if (!conversation) continue;
      const { messages, holes } = holesOf(conversation.messages);
      generation.transcripts.push(transcriptOf(run, messages, holes, run.completions));
    }
  }
  if (answer.outputs) generation.outputs = answer.outputs;
  return generation;
}

/** The transcripts scorers see: every run, or for a plain case the one conversation with its answer. */
export function transcriptsFor(generation: Generation, output: string | null): RunTranscript[] {
  if (generation.transcripts.length > 0) return generation.transcripts;
  const text = output ?? '';
  return [
    {
      conversation: 0,
      repetition: 0,
      messages: [...generation.prompt.messages, { role: 'assistant', content: text }],
      output: text,
      outputs: {},
      completions: [text],
    },
  ];
}
