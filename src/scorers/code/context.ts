// The `context` argument script assertions receive (spec §5.1): promptfoo's
// AssertionValueFunctionContext, filled with what assay knows about the output.
import type { TokenUsage } from '../../core/types.js';
import type { ScoreInput } from '../types.js';

/** What a script sees of the test case (promptfoo passes the whole test; assay has these). */
export interface ScriptTest {
  vars: Record<string, unknown>;
  description?: string;
  metadata?: Record<string, unknown>;
}

/**
 * A ScoreInput that may also carry the case's description and metadata. ScoreInput does not have
 * them yet; when the engine adds `test`, scripts see it without further change here.
 */
export type ScriptScoreInput = ScoreInput & {
  test?: { description?: string; metadata?: Record<string, unknown> };
};

/** promptfoo's `providerResponse`, as far as assay records one. */
export interface ScriptProviderResponse {
  output: unknown;
  finishReason?: string;
  tokenUsage?: TokenUsage;
  cost?: number;
  latencyMs?: number;
  cached?: boolean;
  logProbs?: number[];
}

/** The context object passed as a script's second argument. */
export interface ScriptContext {
  prompt: string;
  vars: Record<string, unknown>;
  test: ScriptTest;
  logProbs?: number[];
  /** The assertion's own `config` mapping. */
  config?: Record<string, unknown>;
  provider?: { id: unknown; config: Record<string, unknown> };
  providerResponse: ScriptProviderResponse;
}

/** The output a script receives: the raw value (objects stay objects), or the text when there is none. */
export function scriptOutput(input: ScoreInput): unknown {
  return input.outputValue === undefined ? input.output : input.outputValue;
}

/**
 * promptfoo's provider is an object whose `id` is a method, so JavaScript written for promptfoo
 * calls `context.provider.id()`. This function also turns into the id wherever a string is wanted
 * (`${context.provider.id}`).
 */
function callableId(id: string): () => string {
  const fn = () => id;
  fn.toString = () => id;
  Object.defineProperty(fn, Symbol.toPrimitive, { value: () => id });
  return fn;
}

/**
 * Builds a script's context. `language` decides the provider id's shape: a method for
 * JavaScript (as in promptfoo), a plain string for Python (JSON has no functions).
 */
export function scriptContext(input: ScriptScoreInput, language: 'javascript' | 'python'): ScriptContext {
  const { response } = input;
  const providerResponse: ScriptProviderResponse = { output: scriptOutput(input) };
  if (response.finishReason !== undefined) providerResponse.finishReason = response.finishReason;
  if (response.usage !== undefined) providerResponse.tokenUsage = response.usage;
  if (response.cost !== undefined) providerResponse.cost = response.cost;
  if (response.latencyMs !== undefined) providerResponse.latencyMs = response.latencyMs;
  if (response.cached !== undefined) providerResponse.cached = response.cached;
  if (response.logProbs !== undefined) providerResponse.logProbs = response.logProbs;

  const test: ScriptTest = { vars: input.vars };
  if (input.test?.description !== undefined) test.description = input.test.description;
  if (input.test?.metadata !== undefined) test.metadata = input.test.metadata;

  const context: ScriptContext = { prompt: input.prompt, vars: input.vars, test, providerResponse };
  if (response.logProbs !== undefined) context.logProbs = response.logProbs;
  const config = input.spec.options?.config;
  if (typeof config === 'object' && config !== null && !Array.isArray(config)) {
    context.config = config as Record<string, unknown>;
  }
  if (input.provider) {
    context.provider = {
      id: language === 'javascript' ? callableId(input.provider.id) : input.provider.id,
      config: input.provider.config,
    };
  }
  return context;
}
