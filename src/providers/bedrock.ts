/**
 * AWS Bedrock through the Converse API (`POST {endpoint}/model/<model-id>/converse`), signed with
 * SigV4 (aws-sigv4.ts), as promptfoo 0.123.1 names and configures it.
 *
 * Ids: `bedrock:converse:<model-id>` is promptfoo's Converse provider. `bedrock:<model-id>` is, in
 * promptfoo, InvokeModel with a request body per model family (Claude, Nova, Llama, Mistral…);
 * assay sends the same conversation through Converse, which every Bedrock chat model accepts,
 * taking the families' usual generation keys (`max_tokens`, `max_gen_len`,
 * `interfaceConfig.max_new_tokens`, `textGenerationConfig.maxTokenCount`, `temperature`,
 * `top_p`, `stop`…) into Converse's `inferenceConfig`, and Claude's default of 1024 output tokens.
 * Other Bedrock APIs (`bedrock:completion:`, `embeddings`, `kb`, `agents`, `mantle`, `responses`,
 * `messages`, Nova Sonic, video; models promptfoo serves through the Responses or Messages API)
 * are refused with that reason.
 *
 * Settings: region `config.region`, `AWS_BEDROCK_REGION`, else us-east-1 (promptfoo does not read
 * AWS_REGION for Bedrock); endpoint `config.endpoint`, `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`,
 * `AWS_ENDPOINT_URL`, else `https://bedrock-runtime.<region>.amazonaws.com`. Credentials:
 * `config.accessKeyId`/`secretAccessKey`/`sessionToken`; else a Bedrock API key
 * (`config.apiKey`, `AWS_BEARER_TOKEN_BEDROCK`) sent as a bearer token; else `config.profile`,
 * the AWS_* variables, `AWS_PROFILE` and the shared credentials/config files.
 */
import type { Message, ProviderSpec } from '../core/types.js';
import { amzDateOf, findAwsCredentials, signV4 } from './aws-sigv4.js';
import { cloudConfigError, namedCloudProvider } from './cloud-kit.js';
import { converseMessages } from './content-parts.js';
import { createHttpApiProvider, type Parsed } from './http-api.js';
import { type Config, finite, isRecord, jsonReply, nonEmpty } from './http-kit.js';
import { excerpt } from './http-transport.js';
import type { Provider, ProviderContext } from './types.js';

const SERVICE = 'AWS Bedrock';
const REFUSED_KINDS = [
  'completion',
  'embeddings',
  'embedding',
  'kb',
  'knowledge-base',
  'agents',
  'mantle',
  'responses',
  'messages',
  'nova-sonic',
  'video',
];
const PARAM_KEYS = [
  'maxTokens',
  'max_tokens',
  'max_gen_len',
  'max_tokens_to_sample',
  'max_new_tokens',
  'interfaceConfig',
  'textGenerationConfig',
  'temperature',
  'topP',
  'top_p',
  'stopSequences',
  'stop',
  'stop_sequences',
  'tools',
  'tool_choice',
  'toolChoice',
  'guardrailIdentifier',
  'guardrailVersion',
  'trace',
  'additionalModelRequestFields',
  'additionalModelResponseFieldPaths',
  'thinking',
  'reasoningConfig',
  'performanceConfig',
  'serviceTier',
] as const;

export function createBedrockAttempts(
  spec: ProviderSpec,
  ctx: ProviderContext,
  now?: () => number,
): Provider {
  const config: Config = spec.config ?? {};
  const parts = spec.id.split(':');
  const kind = parts[1];
  const converse = kind === 'converse';
  if (
    REFUSED_KINDS.includes(kind) ||
    kind.includes('amazon.nova-sonic') ||
    kind.includes('luma.ray') ||
    kind.includes('nova-reel')
  )
    throw cloudConfigError(
      spec,
      SERVICE,
      `"${spec.id}": bedrock:${kind.includes('.') ? kind : `${kind}:`} is not supported by assay (it sends chats through the Converse API: bedrock:<model-id> or bedrock:converse:<model-id>)`,
    );
  const model = converse ? parts.slice(2).join(':') : parts.slice(1).join(':');
  if (/(?:^|\.)openai\.(?!gpt-oss)|(?:^|\.)xai\.grok-|claude-(?:fable|mythos)-5/.test(model))
    throw cloudConfigError(
      spec,
      SERVICE,
      `"${spec.id}": promptfoo serves this model through Bedrock's Responses or Messages API, which assay does not support`,
    );
  const env = ctx.env;
  const region = nonEmpty(config.region) ?? nonEmpty(env.AWS_BEDROCK_REGION) ?? 'us-east-1';
  const endpoint = (
    nonEmpty(config.endpoint) ??
    nonEmpty(env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME) ??
    nonEmpty(env.AWS_ENDPOINT_URL) ??
    `https://bedrock-runtime.${region}.amazonaws.com`
  ).replace(/\/+$/, '');

  const configKeys = nonEmpty(config.accessKeyId) && nonEmpty(config.secretAccessKey);
  const bearer = configKeys ? undefined : (nonEmpty(config.apiKey) ?? nonEmpty(env.AWS_BEARER_TOKEN_BEDROCK));
  const found = bearer ? undefined : findAwsCredentials(config, env);
  const aws = found && !('error' in found) ? found : undefined;
  const credentials = [aws?.secretAccessKey, aws?.sessionToken, bearer].filter(
    (s): s is string => typeof s === 'string' && s.length >= 4,
  );
  const setupError = bearer
    ? undefined
    : found && 'error' in found
      ? found.error
      : !aws
        ? "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), AWS_PROFILE, a default profile in ~/.aws/credentials, the provider's config.accessKeyId/secretAccessKey or config.profile, or a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK"
        : undefined;
  const clock = now ?? Date.now;
  const claudeDefault = !converse && /anthropic\.claude/.test(model) ? 1024 : undefined;

  const inner = createHttpApiProvider(spec, ctx, now, {
    service: SERVICE,
    model,
    idForm: converse ? 'bedrock:converse:<model-id>' : 'bedrock:<model-id>',
    baseUrl: { config: endpoint, env: [], default: endpoint },
    route: `/model/${encodeURIComponent(model)}/converse`,
    key: bearer
      ? { env: ['AWS_BEARER_TOKEN_BEDROCK'], send: { kind: 'bearer' } }
      : { env: [], send: { kind: 'none' } },
    paramKeys: PARAM_KEYS,
    body: (request, params) => converseBody(request.messages, params, env, claudeDefault),
    parse: (text, { redact }) => parseConverse(text, redact, model, region, config),
    describe: { region, auth: bearer ? 'api key' : 'sigv4' },
    extraCredentials: credentials,
    setupError,
    authorize: bearer
      ? undefined
      : async (request) => {
          if (setupError || !aws) return { error: setupError ?? 'no AWS credentials', fatal: true };
          const url = new URL(`${request.origin}${request.path}`);
          const signed = signV4({
            method: 'POST',
            host: url.host,
            path: url.pathname,
            query: url.search.slice(1),
            headers: request.headers,
            body: request.body,
            region,
            service: 'bedrock',
            credentials: aws,
            amzDate: amzDateOf(clock()),
          });
          return { headers: signed };
        },
  });
  // A refused signature or key (403 UnrecognizedClientException, InvalidSignatureException) names
  // where the credentials came from, not the "API key" of services that have one.
  const source = bearer
    ? nonEmpty(config.apiKey)
      ? "the provider's config.apiKey"
      : 'AWS_BEARER_TOKEN_BEDROCK'
    : aws?.source;
  return namedCloudProvider(inner, {
    service: SERVICE,
    credentials,
    refusedKey: (error) =>
      /^authentication failed/.test(error) && source
        ? error.replace(/; check [^;]*$/, `; check ${source}`)
        : undefined,
  });
}

/** Converse's `inferenceConfig` and the rest of the body, from Converse keys and the families' own. */
function converseBody(
  messages: Message[],
  params: Record<string, unknown>,
  env: Record<string, string | undefined>,
  claudeDefault: number | undefined,
): Record<string, unknown> {
  const { system, wire } = converseMessages(messages);
  const iface = isRecord(params.interfaceConfig) ? params.interfaceConfig : {};
  const titan = isRecord(params.textGenerationConfig) ? params.textGenerationConfig : {};
  const envInt = (name: string): number | undefined => {
    const n = Number.parseInt(env[name] ?? '', 10);
    return Number.isFinite(n) ? n : undefined;
  };
  const envFloat = (name: string): number | undefined => {
    const n = Number.parseFloat(env[name] ?? '');
    return Number.isFinite(n) ? n : undefined;
  };
  const reasoning = isRecord(params.reasoningConfig) && params.reasoningConfig.type === 'enabled';
  const highEffort = isRecord(params.reasoningConfig) && params.reasoningConfig.maxReasoningEffort === 'high';
  const maxTokens =
    finite(params.maxTokens) ??
    finite(params.max_tokens) ??
    finite(params.max_gen_len) ??
    finite(params.max_tokens_to_sample) ??
    finite(params.max_new_tokens) ??
    finite(iface.max_new_tokens) ??
    finite(titan.maxTokenCount) ??
    envInt('AWS_BEDROCK_MAX_TOKENS') ??
    claudeDefault;
  const temperature =
    finite(params.temperature) ??
    finite(iface.temperature) ??
    finite(titan.temperature) ??
    envFloat('AWS_BEDROCK_TEMPERATURE');
  const topP =
    finite(params.topP) ??
    finite(params.top_p) ??
    finite(iface.top_p) ??
    finite(titan.topP) ??
    envFloat('AWS_BEDROCK_TOP_P');
  let stop = params.stopSequences ?? params.stop ?? params.stop_sequences ?? titan.stopSequences;
  if (stop === undefined && env.AWS_BEDROCK_STOP) {
    try {
      stop = JSON.parse(env.AWS_BEDROCK_STOP);
    } catch {
      stop = undefined;
    }
  }
  const inferenceConfig: Record<string, unknown> = {};
  if (maxTokens !== undefined && !(reasoning && highEffort)) inferenceConfig.maxTokens = maxTokens;
  if (temperature !== undefined && !reasoning) inferenceConfig.temperature = temperature;
  if (topP !== undefined && !reasoning) inferenceConfig.topP = topP;
  if (Array.isArray(stop)) inferenceConfig.stopSequences = stop;
  const body: Record<string, unknown> = { messages: wire };
  if (system.length > 0) body.system = system;
  if (Object.keys(inferenceConfig).length > 0) body.inferenceConfig = inferenceConfig;
  const toolChoice = params.tool_choice ?? params.toolChoice;
  const tools =
    Array.isArray(params.tools) && toolChoice !== 'none' ? converseTools(params.tools) : undefined;
  if (tools && tools.length > 0) {
    const choice = converseToolChoice(toolChoice);
    body.toolConfig = { tools, ...(choice ? { toolChoice: choice } : {}) };
  }
  if (params.guardrailIdentifier !== undefined)
    body.guardrailConfig = {
      guardrailIdentifier: String(params.guardrailIdentifier),
      guardrailVersion: String(params.guardrailVersion ?? 'DRAFT'),
      ...(params.trace ? { trace: params.trace } : {}),
    };
  const fields: Record<string, unknown> = isRecord(params.additionalModelRequestFields)
    ? { ...params.additionalModelRequestFields }
    : {};
  if (params.thinking) fields.thinking = params.thinking;
  if (params.reasoningConfig) fields.reasoningConfig = params.reasoningConfig;
  if (Object.keys(fields).length > 0) body.additionalModelRequestFields = fields;
  if (params.additionalModelResponseFieldPaths)
    body.additionalModelResponseFieldPaths = params.additionalModelResponseFieldPaths;
  if (isRecord(params.performanceConfig))
    body.performanceConfig = { latency: params.performanceConfig.latency };
  if (isRecord(params.serviceTier)) body.serviceTier = { type: params.serviceTier.type };
  return body;
}

/** Tools in Converse's shape: `toolSpec`s as given, or OpenAI/Anthropic-style tools converted. */
function converseTools(tools: unknown[]): Record<string, unknown>[] {
  return tools.filter(isRecord).map((tool) => {
    if (isRecord(tool.toolSpec)) return { toolSpec: tool.toolSpec };
    if (tool.type === 'function' && isRecord(tool.function)) {
      const fn = tool.function;
      return {
        toolSpec: {
          name: fn.name,
          ...(fn.description ? { description: fn.description } : {}),
          inputSchema: { json: fn.parameters ?? { type: 'object', properties: {} } },
        },
      };
    }
    const schema = 'parameters' in tool && !('input_schema' in tool) ? tool.parameters : tool.input_schema;
    return {
      toolSpec: {
        name: tool.name,
        description: tool.description,
        inputSchema: { json: schema ?? { type: 'object', properties: {} } },
      },
    };
  });
}

function converseToolChoice(choice: unknown): Record<string, unknown> | undefined {
  if (choice === undefined) return undefined;
  if (choice === 'required' || choice === 'any') return { any: {} };
  if (isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === 'string')
    return { tool: { name: choice.function.name } };
  if (isRecord(choice) && isRecord(choice.tool) && typeof choice.tool.name === 'string')
    return { tool: { name: choice.tool.name } };
  return { auto: {} };
}

/** Reads a Converse answer as promptfoo does: text blocks, thinking, tool use as JSON; usage; cost. */
function parseConverse(
  text: string,
  redact: (s: string) => string,
  model: string,
  region: string,
  config: Config,
): Parsed {
  const reply = jsonReply(text, redact);
  if ('error' in reply) return { output: null, error: reply.error };
  const data = reply.value;
  const message =
    isRecord(data) && isRecord(data.output) && isRecord(data.output.message)
      ? data.output.message
      : undefined;
  if (!isRecord(data) || !message || !Array.isArray(message.content))
    return {
      output: null,
      error: redact(`malformed response (no output.message.content): ${excerpt(text)}`),
    };
  const blocks = message.content.filter(isRecord);
  const showThinking = config.showThinking !== false;
  const toolUses = blocks.filter((b) => isRecord(b.toolUse));
  const out: Parsed = {
    output: blockText(toolUses.length > 0 ? toolUses : blocks, showThinking),
  };
  if (toolUses.length > 0) out.nonText = 'tool calls';
  const stop = typeof data.stopReason === 'string' ? data.stopReason : undefined;
  if (stop) out.finishReason = stop;
  if (stop === 'malformed_model_output')
    out.error = 'the model produced invalid output; the response could not be parsed';
  else if (stop === 'malformed_tool_use') out.error = 'the model produced a malformed tool use request';
  const usage = isRecord(data.usage) ? data.usage : {};
  const prompt = finite(usage.inputTokens);
  const completion = finite(usage.outputTokens);
  out.usage = { prompt, completion, total: finite(usage.totalTokens) || (prompt ?? 0) + (completion ?? 0) };
  const cost = bedrockCost(
    model,
    region,
    config,
    prompt,
    completion,
    finite(usage.cacheReadInputTokens) ?? 0,
  );
  if (cost !== undefined) out.cost = cost;
  return out;
}

function blockText(blocks: Record<string, unknown>[], showThinking: boolean): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (typeof block.text === 'string' && block.text) parts.push(block.text);
    else if (isRecord(block.reasoningContent)) {
      if (!showThinking) continue;
      const reasoning = block.reasoningContent;
      if (isRecord(reasoning.reasoningText)) {
        const thinking = typeof reasoning.reasoningText.text === 'string' ? reasoning.reasoningText.text : '';
        if (thinking.trim() !== '') {
          parts.push(`<thinking>\n${thinking}\n</thinking>`);
          if (typeof reasoning.reasoningText.signature === 'string' && reasoning.reasoningText.signature)
            parts.push(`Signature: ${reasoning.reasoningText.signature}`);
        }
      } else if (reasoning.redactedContent) parts.push('<thinking>[Redacted]</thinking>');
    } else if (isRecord(block.toolUse)) {
      const t = block.toolUse;
      parts.push(JSON.stringify({ type: 'tool_use', id: t.toolUseId, name: t.name, input: t.input }));
    }
  }
  return parts.join('\n\n');
}

/**
 * promptfoo's on-demand prices (USD per million tokens) for the families whose price needs no
 * regional premium nor cache-write accounting; the first entry whose id the model id contains.
 */
const PRICES: [string, number, number][] = [
  ['anthropic.claude-3-opus', 15, 75],
  ['anthropic.claude-3-5-sonnet', 3, 15],
  ['anthropic.claude-3-7-sonnet', 3, 15],
  ['anthropic.claude-3-5-haiku', 0.8, 4],
  ['anthropic.claude-3-haiku', 0.25, 1.25],
  ['amazon.nova-micro', 0.035, 0.14],
  ['amazon.nova-lite', 0.06, 0.24],
  ['amazon.nova-pro', 0.8, 3.2],
  ['amazon.nova-premier', 2.5, 12.5],
  ['amazon.nova-2-lite', 0.33, 2.75],
  ['amazon.titan-text-lite', 0.15, 0.2],
  ['amazon.titan-text-express', 0.2, 0.6],
  ['amazon.titan-text-premier', 0.5, 1.5],
  ['meta.llama3-1-8b', 0.22, 0.22],
  ['meta.llama3-1-70b', 0.72, 0.72],
  ['meta.llama3-1-405b', 5.32, 16],
  ['meta.llama3-2-1b', 0.1, 0.1],
  ['meta.llama3-2-3b', 0.15, 0.15],
  ['meta.llama3-2-11b', 0.16, 0.16],
  ['meta.llama3-2-90b', 0.72, 0.72],
  ['meta.llama3-3-70b', 0.72, 0.72],
  ['meta.llama4-scout', 0.17, 0.66],
  ['meta.llama4-maverick', 0.24, 0.97],
  ['mistral.mistral-7b', 0.15, 0.2],
  ['mistral.mixtral-8x7b', 0.45, 0.7],
  ['mistral.mistral-large', 4, 12],
  ['mistral.mistral-small', 1, 3],
];

function bedrockCost(
  model: string,
  region: string,
  config: Config,
  prompt: number | undefined,
  completion: number | undefined,
  cacheRead: number,
): number | undefined {
  if (prompt === undefined || completion === undefined) return undefined;
  const id = model.toLowerCase();
  // us-gov regions and the priority/flex tiers are priced differently: no cost rather than a wrong one.
  if (region.startsWith('us-gov-') || isRecord(config.serviceTier)) return undefined;
  const entry = PRICES.find(([prefix]) => id.includes(prefix));
  if (!entry) return undefined;
  const [, inputPerM, outputPerM] = entry;
  const cached = id.includes('amazon.nova-') ? cacheRead * (inputPerM / 1e6) * 0.25 : 0;
  if (cacheRead > 0 && !id.includes('amazon.nova-')) return undefined;
  return (prompt * inputPerM) / 1e6 + cached + (completion * outputPerM) / 1e6;
}
