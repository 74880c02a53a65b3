// One LVE instance as an assay case: LVE's `split_instance_args`, `fill_prompt` (Python
// format_map on non-assistant messages), the appended response hole, the checker's arguments
// formatted with all instance args, and the model args with temperature 0.0 by default.

import { PyFormatError, pyFormatMap } from '../../core/python/format.js';
import { pyJsonDumps } from '../../core/python/json-dumps.js';
import { PyFloat, type PyValue, pyToJs } from '../../core/python/json-loads.js';
import { pyStr } from '../../core/python/str.js';
import type { Case, CaseReplay, ContentPart, Conversation, Message } from '../../core/types.js';
import type { LveInstance } from './instances.js';
import type { LveMessage } from './messages.js';
import type { LveTest } from './test-json.js';

/** The metadata key of the category × severity table. */
export const CATEGORY_SEVERITY = 'category × severity';

/** What every case of one LVE shares. */
export interface LveRef {
  test: LveTest;
  category: string;
  name: string;
  /** The LVE's path below the repository root (`repository/…/openai--gpt-4`). */
  rel: string;
  checkerType: string;
  replay: boolean;
  /** LVE's `dummy/dummy` model answers here, without a provider (its `response` model arg, else "Hello world"). */
  dummy?: boolean;
}

/** LVE's split_instance_args: prompt values (None dropped) and model args. */
export function splitInstanceArgs(
  args: Map<string, PyValue>,
  promptParameters: string[] | null,
): { params: Map<string, PyValue>; modelArgs: Map<string, PyValue> } {
  if (promptParameters === null) return { params: new Map(), modelArgs: new Map(args) };
  const params = new Map<string, PyValue>();
  const modelArgs = new Map<string, PyValue>();
  for (const [k, v] of args) {
    if (v === null) continue;
    if (promptParameters.includes(k)) params.set(k, v);
    else modelArgs.set(k, v);
  }
  return { params, modelArgs };
}

/** Model args as request parameters: defaults merged, temperature 0.0 unless given, nulls left out. */
export function requestParams(
  defaults: Record<string, PyValue>,
  modelArgs: Map<string, PyValue>,
): Record<string, unknown> {
  const merged = new Map<string, PyValue>(Object.entries(defaults));
  for (const [k, v] of modelArgs) merged.set(k, v);
  if (!merged.has('temperature')) merged.set('temperature', new PyFloat(0));
  const out: Record<string, unknown> = {};
  for (const [k, v] of merged) {
    if (v === null) continue;
    // HuggingFace's name for the answer length is the OpenAI-compatible one's max_tokens.
    if (k === 'max_new_tokens') {
      if (!merged.has('max_tokens') || merged.get('max_tokens') === null)
        out.max_tokens = numeric('max_tokens', pyToJs(v));
      continue;
    }
    out[k] = numeric(k, pyToJs(v));
  }
  return out;
}

/** Sampling parameters given as text (`--var temperature=0.5`) are sent as the numbers LVE's flags give. */
const NUMERIC_PARAMS = new Set([
  'temperature',
  'top_p',
  'max_tokens',
  'seed',
  'frequency_penalty',
  'presence_penalty',
]);

function numeric(key: string, value: unknown): unknown {
  if (
    NUMERIC_PARAMS.has(key) &&
    typeof value === 'string' &&
    /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(value)
  )
    return Number(value);
  return value;
}

class CaseProblem extends Error {}

function format(
  template: string,
  values: ReadonlyMap<string, PyValue>,
  where: string,
  method: 'format_map' | 'format' = 'format_map',
): string {
  try {
    return pyFormatMap(template, values, method);
  } catch (err) {
    if (err instanceof PyFormatError)
      throw new CaseProblem(
        `${where}: ${err.describe()}${err.pyType === 'KeyError' ? ' (a parameter with no value)' : ''}`,
      );
    throw err;
  }
}

/**
 * LVE's fill_prompt, then the core messages: images as content parts, holes as null assistant
 * messages. A prompt that ends with an assistant message with content and has no hole asks the
 * model nothing: LVE's checker reads that message as the response. With `prefill`, such a prompt
 * comes back with that message as its one hole and its text in `prefill.text` (the case answers
 * it itself); without, it is refused.
 */
function fillPrompt(
  messages: LveMessage[],
  params: Map<string, PyValue>,
  where: string,
  prefill?: { text?: string },
): Message[] {
  const out: Message[] = messages.map((m, i) => {
    if (m.role === 'assistant') {
      const msg: Message = { role: 'assistant', content: m.content };
      if (m.variable !== null) msg.variable = m.variable;
      return msg;
    }
    const text = format(m.content ?? '', params, `${where} message ${i + 1}`);
    if (m.image_url === null) return { role: m.role, content: text };
    const url = format(m.image_url, params, `${where} message ${i + 1} image_url`, 'format');
    const parts: ContentPart[] = [
      { type: 'text', text },
      { type: 'image_url', image_url: { url } },
    ];
    return { role: m.role, content: parts };
  });
  const last = out[out.length - 1];
  if (last.role !== 'assistant') out.push({ role: 'assistant', content: null, variable: 'response' });
  else if (!out.some((m) => m.role === 'assistant' && m.content === null) && prefill) {
    prefill.text = typeof last.content === 'string' ? last.content : '';
    out[out.length - 1] = { ...last, content: null };
  } else if (!out.some((m) => m.role === 'assistant' && m.content === null))
    throw new CaseProblem(
      `${where}: the prompt ends with an assistant message that has content, so LVE asks the model nothing; give it "content": null to have it answered`,
    );
  const assistants = out.filter((m) => m.role === 'assistant');
  if (assistants.length > 1 && assistants.some((m) => m.variable === undefined))
    throw new CaseProblem(
      `${where}: with more than one assistant message, every one needs a "variable" (LVE asserts this and stops)`,
    );
  return out;
}

/** The holes of a conversation, in order: their variables. */
function holeVariables(messages: Message[]): (string | undefined)[] {
  return messages.filter((m) => m.role === 'assistant' && m.content === null).map((m) => m.variable);
}

/** A recorded response laid onto the case's runs and holes (replay). */
function recordedAnswers(
  response: PyValue | undefined,
  conversations: Conversation[],
  multi: boolean,
): CaseReplay {
  const runs: (string | undefined)[][] = [];
  for (const c of conversations)
    for (let r = 0; r < (c.repetitions ?? 1); r++) runs.push(holeVariables(c.messages));
  const plain = runs.length === 1 && runs[0].length === 1;
  const onto = (value: PyValue, holes: (string | undefined)[], which: string): string[] => {
    if (typeof value === 'string') {
      if (holes.length !== 1)
        throw new CaseProblem(
          `the recorded response${which} is one string, but the prompt has ${holes.length} answers to fill (${holes.join(', ')})`,
        );
      return [value];
    }
    if (value instanceof Map) {
      return holes.map((v) => {
        const text = v !== undefined ? value.get(v) : undefined;
        if (typeof text !== 'string')
          throw new CaseProblem(
            `the recorded response${which} has no "${v}" (the prompt's variables: ${holes.join(', ')})`,
          );
        return text;
      });
    }
    throw new CaseProblem(`the recorded response${which} does not fit the prompt`);
  };
  if (response === undefined || response === null)
    throw new CaseProblem('the instance has no recorded response to replay');
  // A multi_run_prompt's response is a list, one per run, even when it makes a single run.
  if (multi) {
    if (!Array.isArray(response) || response.length !== runs.length)
      throw new CaseProblem(
        `the prompt makes ${runs.length} run${runs.length === 1 ? '' : 's'}; the recorded response should be a list of ${runs.length}`,
      );
    const recorded = response.map((r, i) => onto(r, runs[i], ` of run ${i + 1}`));
    return plain ? { output: recorded[0][0] } : { runs: recorded };
  }
  const completions = onto(response, runs[0], '');
  return plain ? { output: completions[0] } : { runs: [completions] };
}

/** LVE's dummy model: every hole answered with the `response` model arg, else "Hello world". */
function dummyAnswers(modelArgs: Map<string, PyValue>, conversations: Conversation[]): CaseReplay {
  if (modelArgs.has('random_responses') && !modelArgs.has('response'))
    throw new CaseProblem(
      'the dummy/dummy model picks one of random_responses at random, which assay does not reproduce; give a "response" model arg',
    );
  const given = modelArgs.get('response');
  const answer =
    given === undefined || given === null ? 'Hello world' : typeof given === 'string' ? given : pyStr(given);
  const runs: string[][] = [];
  for (const c of conversations)
    for (let r = 0; r < (c.repetitions ?? 1); r++) runs.push(holeVariables(c.messages).map(() => answer));
  return runs.length === 1 && runs[0].length === 1 ? { output: answer } : { runs: runs };
}

/** Builds the case of one instance of an LVE; a problem of this instance alone becomes its error. */
export function buildCase(ref: LveRef, instance: LveInstance, fresh: boolean): Omit<Case, 'id'> {
  const { test } = ref;
  const { params, modelArgs } = splitInstanceArgs(instance.args, test.promptParameters);
  const tags = Object.fromEntries(test.tags.filter((t) => t.name !== 'paper').map((t) => [t.name, t.value]));
  const papers = test.tags.filter((t) => t.name === 'paper').map((t) => t.value);
  const metadata: Record<string, unknown> = {
    category: ref.category,
    lve: ref.rel.replace(/^repository\//, ''),
    name: ref.name,
    model: test.model,
    checker: test.checkerName,
    // Untagged LVEs have no such key, so `--filter-metadata jailbreak=no` (a substring test) never
    // picks them by accident.
    ...(tags.severity ? { severity: tags.severity } : {}),
    ...(tags.jailbreak ? { jailbreak: tags.jailbreak } : {}),
    [CATEGORY_SEVERITY]: `${ref.category} · ${tags.severity ?? 'no severity tag'}`,
    ...(papers.length ? { paper: papers } : {}),
    instance_file: instance.fileName,
    instance_line: instance.line,
    args: pyJsonDumps(instance.args),
    // A multi_run_prompt's response and checker input are per run, however many runs it makes.
    ...(test.multiRun ? { multi_run: true } : {}),
  };
  if (instance.passed !== undefined && !fresh) metadata.recorded_passed = instance.passed;
  const description = `${ref.rel} ${instance.fileName}:${instance.line}`;
  const source = { file: instance.file, line: instance.line };
  const base: Omit<Case, 'id'> = {
    ref: `${ref.rel}/instances/${instance.fileName}:${instance.line}`,
    description,
    vars: pyToJs(params) as Record<string, unknown>,
    asserts: [],
    metadata,
    provenance: { source },
  };
  const prefill: { text?: string } = {};
  try {
    const conversations: Conversation[] = test.multiRun
      ? test.multiRun.map((e) => ({
          messages: fillPrompt(e.messages, params, `multi_run_prompt "${e.name}"`),
          ...(e.repetitions > 1 ? { repetitions: e.repetitions } : {}),
        }))
      : [{ messages: fillPrompt(test.prompt ?? [], params, 'prompt', prefill) }];
    // Checker arguments: every string formatted with all the instance's args (model args too).
    const checkerArgs = new Map<string, PyValue>();
    for (const [k, v] of test.checkerArgs)
      checkerArgs.set(
        k,
        typeof v === 'string' ? format(v, instance.args, `checker_args "${k}"`, 'format') : v,
      );
    base.conversations = conversations;
    // A plain prompt's one hole is answered as a plain prompt: its variable (LVE's appended
    // `response`, or the prompt's own) is kept here for the checker's prompt_out and --record.
    if (!test.multiRun) {
      const holes = holeVariables(conversations[0].messages);
      if (holes.length === 1) metadata.answer_variable = holes[0] ?? null;
    }
    base.preparation = { options: { params: requestParams(test.defaultModelArgs, modelArgs) } };
    base.asserts = [
      {
        type: ref.checkerType,
        literal: true,
        options: {
          args: pyJsonDumps(checkerArgs),
          params: pyJsonDumps(params),
          ...(test.multiRun ? { multi: true } : {}),
          ...(test.customCheckerFiles.length ? { files: test.customCheckerFiles } : {}),
          ...(ref.replay
            ? { expect: instance.passed ?? true }
            : !fresh && instance.passed !== undefined
              ? { recorded: instance.passed }
              : {}),
        },
        source: { file: test.file, ...(test.lineOf('checker_args') ?? {}) },
      },
    ];
    if (ref.replay)
      base.replay = recordedAnswers(instance.response, conversations, test.multiRun !== undefined);
    else if (ref.dummy) base.replay = dummyAnswers(modelArgs, conversations);
    // Nothing to ask the model: LVE's checker sees the prompt's own last message as the response.
    if (prefill.text !== undefined) base.replay = { output: prefill.text };
  } catch (err) {
    if (!(err instanceof CaseProblem)) throw err;
    base.error = err.message;
  }
  return base;
}
