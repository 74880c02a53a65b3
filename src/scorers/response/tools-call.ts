import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { isRecord } from '../../core/records.js';
import { yamlLib } from '../../core/yaml-lib.js';
import { schemaValidator } from '../structured/json-schema.js';
import type { ScoreInput, ScoreResult, Scorer } from '../types.js';
import { ScorerInputError } from '../types.js';
import { truncate } from '../util.js';

/** One tool call as OpenAI returns it (`arguments` is JSON text, not an object). */
interface ToolCall {
  function: { name: string; arguments: string };
}

/**
 * The tool calls in an output: the output itself when it is a list, its `tool_calls` when it is a
 * message object, or the same shapes given as JSON text (assay's OpenAI provider returns the
 * `tool_calls` list as JSON). Undefined when the output holds nothing of the kind.
 */
function toolCallsIn(outputValue: unknown, output: string): unknown[] | undefined {
  let value = outputValue;
  if (typeof value === 'string' || value === undefined) {
    try {
      value = JSON.parse(output);
    } catch {
      return undefined;
    }
  }
  if (isRecord(value) && 'tool_calls' in value) value = value.tool_calls;
  return Array.isArray(value) ? value : undefined;
}

function isToolCall(value: unknown): value is ToolCall {
  return (
    isRecord(value) &&
    isRecord(value.function) &&
    typeof value.function.name === 'string' &&
    typeof value.function.arguments === 'string'
  );
}

/** The provider's `tools` config: a list, YAML/JSON text, or a `file://` JSON/YAML file beside the suite. */
function configuredTools(input: ScoreInput): unknown[] {
  let tools = input.provider?.config.tools;
  if (typeof tools === 'string') {
    let text = tools;
    if (tools.startsWith('file://')) {
      const path = tools.slice('file://'.length);
      const full = isAbsolute(path) ? path : resolve(input.basePath ?? '.', path);
      try {
        text = readFileSync(full, 'utf8');
      } catch (err) {
        throw new ScorerInputError(
          `cannot read the provider's tools file ${full}: ${(err as Error).message}`,
        );
      }
    }
    try {
      tools = yamlLib().parse(text, { logLevel: 'error' });
    } catch (err) {
      throw new ScorerInputError(
        `the provider's tools are not valid JSON or YAML: ${(err as Error).message}`,
      );
    }
  }
  if (!Array.isArray(tools)) {
    throw new ScorerInputError(
      `Tools are expected to be an array of objects with a function property. Got: ${truncate(JSON.stringify(tools) ?? 'undefined', 200)}`,
    );
  }
  return tools;
}

/** The `function` definition of the tool with that name, or undefined. */
function toolNamed(tools: readonly unknown[], name: string): Record<string, unknown> | undefined {
  for (const tool of tools) {
    if (isRecord(tool) && isRecord(tool.function) && tool.function.name === name) return tool.function;
  }
  return undefined;
}

async function scoreToolsCall(input: ScoreInput): Promise<ScoreResult> {
  const calls = toolCallsIn(input.outputValue, input.output);
  if (!calls || calls.length === 0 || !calls.every(isToolCall)) {
    return {
      pass: false,
      score: 0,
      reason: `OpenAI did not return a valid-looking tools response: ${truncate(input.output)}`,
    };
  }
  const tools = configuredTools(input);
  for (const call of calls) {
    const { name, arguments: argumentText } = call.function;
    const tool = toolNamed(tools, name);
    if (!tool)
      return { pass: false, score: 0, reason: `Called "${name}", but there is no function with that name` };
    let args: unknown;
    try {
      args = JSON.parse(argumentText);
    } catch (err) {
      return {
        pass: false,
        score: 0,
        reason: `Call to "${name}" has arguments that are not valid JSON (${(err as Error).message}): ${truncate(argumentText)}`,
      };
    }
    // A tool declared without `parameters` takes any arguments (OpenAI allows it).
    if (tool.parameters === undefined) continue;
    const errors = (await schemaValidator(tool.parameters, 'is-valid-openai-tools-call')).check(args);
    if (errors !== undefined) {
      return { pass: false, score: 0, reason: `Call to "${name}" does not match schema: ${errors}` };
    }
  }
  return { pass: true, score: 1, reason: 'Assertion passed' };
}

/**
 * `is-valid-openai-tools-call`: the output is a non-empty list of tool calls, each naming a tool of
 * the provider's `config.tools` with arguments valid against its JSON Schema. `not-` is ignored, as
 * in the promptfoo version the spec follows.
 */
export const toolsCallScorer: Scorer = {
  type: 'is-valid-openai-tools-call',
  description: "Output is a list of tool calls valid against the provider's config.tools schemas",
  score: scoreToolsCall,
};
