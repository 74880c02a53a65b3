/**
 * A recording server for providers' wire shapes with scripted scenarios, for tests and for
 * recording what promptfoo makes of the same answers (scripts/promptfoo-provider-record.js). It
 * answers each API in its own shape — OpenAI chat completions and legacy completions, Azure
 * OpenAI (its deployments' routes and its content-filter 400), Anthropic Messages, Google Gemini,
 * Bedrock Converse, Ollama's native API and Hugging Face text generation — and records every
 * request it was sent (`requests`).
 *
 * The scenario is named in the request itself: `[[scenario:NAME]]` anywhere in its body (the
 * prompt is the natural place), else `normal`. Scenarios (SCENARIOS below): `normal`, `tool-call`,
 * `text-tool-call`, `reasoning`, `refusal`, `content-filter`, `length`, `empty`, `rate-limit` (the
 * first attempt of a request is a 429 with `retry-after: 1`, later ones answer normally),
 * `server-error` (500, always), `bad-request` (400, always). A request asking to stream
 * (`stream: true`) is streamed in the API's way (OpenAI and Anthropic: server-sent events, the
 * tool-call arguments in fragments; Ollama: a JSON object a line).
 *
 * To add a wire shape: a `WireShape` in SHAPES (how its path looks, how it renders a scripted
 * answer, how its errors look), placed before any shape whose path test would also match it.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { isRecord } from '../../src/core/records.js';

/** The scripted scenarios, by name. */
export const SCENARIOS = [
  'normal',
  'tool-call',
  'text-tool-call',
  'reasoning',
  'refusal',
  'content-filter',
  'length',
  'empty',
  'rate-limit',
  'server-error',
  'bad-request',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** What a scenario answers, before a wire shape renders it. */
export interface Scripted {
  /** The answer's text; absent: no text (`content: null`). */
  text?: string;
  toolCall?: { id: string; name: string; arguments: string };
  reasoning?: string;
  /** The model declines (OpenAI's `message.refusal`, Anthropic's `stop_reason: refusal`). */
  refusal?: string;
  /** The service's content filter stopped the answer. */
  filtered?: boolean;
  /** The answer was cut by the token limit. */
  truncated?: boolean;
  promptTokens: number;
  completionTokens: number;
}

export const ANSWER_TEXT = 'The capital of France is Paris.';
export const TOOL_CALL = { id: 'call_mock_weather', name: 'get_weather', arguments: '{"city":"Paris"}' };
export const REFUSAL_TEXT = "I'm sorry, but I can't help with that.";
export const FILTER_MESSAGE =
  "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.";

/** The scripted answer of a scenario that answers (not the error scenarios). */
export function scripted(scenario: Scenario): Scripted {
  const usage = { promptTokens: 11, completionTokens: 7 };
  switch (scenario) {
    case 'tool-call':
      return { toolCall: TOOL_CALL, ...usage, completionTokens: 9 };
    case 'text-tool-call':
      return { text: 'Let me look up the weather.', toolCall: TOOL_CALL, ...usage, completionTokens: 15 };
    case 'reasoning':
      return {
        text: ANSWER_TEXT,
        reasoning: 'The user asks for the capital of France.',
        ...usage,
        completionTokens: 16,
      };
    case 'refusal':
      return { refusal: REFUSAL_TEXT, ...usage, completionTokens: 10 };
    case 'content-filter':
      return { filtered: true, ...usage, completionTokens: 0 };
    case 'length':
      return { text: 'The capital of', truncated: true, ...usage, completionTokens: 3 };
    case 'empty':
      return { ...usage, completionTokens: 0 };
    default:
      return { text: ANSWER_TEXT, ...usage };
  }
}

/** What the server sends back: a whole body, or pieces written one after another (a stream). */
export type Reply =
  | { status: number; body: string; headers?: Record<string, string> }
  | { status: 200; contentType: string; pieces: string[] };

/** A request as a shape sees it. */
export interface ShapeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
}

/** One API's wire shape. */
export interface WireShape {
  name: string;
  matches(method: string, path: string): boolean;
  /** The scripted answer in this API's shape (streamed when the request asks). */
  answer(s: Scripted, req: ShapeRequest): Reply;
  /** An error of this API (`kind`: `rate_limit`, `server`, `invalid_request`). */
  error(status: number, kind: string, message: string): Reply;
}

export interface SeenRequest {
  method: string;
  path: string;
  /** The query string, '' when none. */
  query: string;
  headers: IncomingMessage['headers'];
  /** The body as received. */
  raw: string;
  /** The shape that answered ('' when none matched) and the scenario it played. */
  shape: string;
  scenario: Scenario;
}

export interface MockProviders {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** With `tls`: `https://127.0.0.1:PORT`, the same handler behind TLS (for clients that insist on https). */
  tlsUrl?: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

const json = (status: number, payload: unknown, headers?: Record<string, string>): Reply => ({
  status,
  body: JSON.stringify(payload),
  ...(headers ? { headers } : {}),
});

const CREATED = 1_700_000_000;

// ── OpenAI ──────────────────────────────────────────────────────────────────────────────────────

function openAiError(status: number, kind: string, message: string): Reply {
  const type =
    kind === 'rate_limit'
      ? 'rate_limit_exceeded'
      : kind === 'server'
        ? 'server_error'
        : 'invalid_request_error';
  return json(
    status,
    { error: { message, type, param: null, code: type } },
    status === 429 ? { 'retry-after': '1' } : undefined,
  );
}

function openAiUsage(s: Scripted): Record<string, number> {
  return {
    prompt_tokens: s.promptTokens,
    completion_tokens: s.completionTokens,
    total_tokens: s.promptTokens + s.completionTokens,
  };
}

function finishOf(s: Scripted): string {
  return s.filtered ? 'content_filter' : s.toolCall ? 'tool_calls' : s.truncated ? 'length' : 'stop';
}

function modelOf(req: ShapeRequest): string {
  return typeof req.body.model === 'string' ? req.body.model : 'mock-model';
}

/** An OpenAI chat completion, whole or as server-sent events (content a word at a time, tool-call arguments in two fragments). */
function openAiChatAnswer(s: Scripted, req: ShapeRequest): Reply {
  const model = modelOf(req);
  const id = 'chatcmpl-mock';
  if (req.body.stream !== true) {
    const message: Record<string, unknown> = { role: 'assistant', content: s.text ?? null };
    if (s.reasoning) message.reasoning_content = s.reasoning;
    if (s.refusal) message.refusal = s.refusal;
    if (s.toolCall)
      message.tool_calls = [
        {
          id: s.toolCall.id,
          type: 'function',
          function: { name: s.toolCall.name, arguments: s.toolCall.arguments },
        },
      ];
    return json(200, {
      id,
      object: 'chat.completion',
      created: CREATED,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(s) }],
      usage: openAiUsage(s),
    });
  }
  const chunk = (
    delta: Record<string, unknown>,
    finish: string | null = null,
    extra: Record<string, unknown> = {},
  ) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: CREATED, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`;
  const pieces = [chunk({ role: 'assistant', content: '' })];
  if (s.reasoning) for (const w of words(s.reasoning)) pieces.push(chunk({ reasoning_content: w }));
  if (s.text) for (const w of words(s.text)) pieces.push(chunk({ content: w }));
  if (s.refusal) for (const w of words(s.refusal)) pieces.push(chunk({ refusal: w }));
  if (s.toolCall) {
    const args = s.toolCall.arguments;
    const half = Math.floor(args.length / 2);
    pieces.push(
      chunk({
        tool_calls: [
          {
            index: 0,
            id: s.toolCall.id,
            type: 'function',
            function: { name: s.toolCall.name, arguments: args.slice(0, half) },
          },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }),
    );
  }
  pieces.push(chunk({}, finishOf(s)));
  if (isRecord(req.body.stream_options) && req.body.stream_options.include_usage === true)
    pieces.push(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: CREATED, model, choices: [], usage: openAiUsage(s) })}\n\n`,
    );
  pieces.push('data: [DONE]\n\n');
  return { status: 200, contentType: 'text/event-stream', pieces };
}

/** A legacy completion (`choices[0].text`), whole or streamed. */
function openAiCompletionAnswer(s: Scripted, req: ShapeRequest): Reply {
  const model = modelOf(req);
  const text = s.text ?? (s.toolCall ? '' : (s.refusal ?? ''));
  const finish = s.filtered ? 'content_filter' : s.truncated ? 'length' : 'stop';
  if (req.body.stream !== true)
    return json(200, {
      id: 'cmpl-mock',
      object: 'text_completion',
      created: CREATED,
      model,
      choices: [{ index: 0, text: s.filtered ? null : text, logprobs: null, finish_reason: finish }],
      usage: openAiUsage(s),
    });
  const chunk = (piece: string, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'cmpl-mock', object: 'text_completion', created: CREATED, model, choices: [{ index: 0, text: piece, logprobs: null, finish_reason: finish }] })}\n\n`;
  const pieces = words(text).map((w) => chunk(w, null));
  pieces.push(chunk('', finish), 'data: [DONE]\n\n');
  return { status: 200, contentType: 'text/event-stream', pieces };
}

/** Azure's content filter refusing the prompt: HTTP 400 with the filter's result. */
function azureFilter(): Reply {
  return json(400, {
    error: {
      message: FILTER_MESSAGE,
      type: null,
      param: 'prompt',
      code: 'content_filter',
      status: 400,
      innererror: {
        code: 'ResponsibleAIPolicyViolation',
        content_filter_result: { hate: { filtered: true, severity: 'high' } },
      },
    },
  });
}

const AZURE_CHAT = /^\/openai\/deployments\/[^/]+\/chat\/completions$/;
const AZURE_COMPLETIONS = /^\/openai\/deployments\/[^/]+\/completions$/;

// ── Anthropic ───────────────────────────────────────────────────────────────────────────────────

function anthropicAnswer(s: Scripted, req: ShapeRequest): Reply {
  const content: Record<string, unknown>[] = [];
  if (s.reasoning) content.push({ type: 'thinking', thinking: s.reasoning, signature: 'sig-mock' });
  if (s.text) content.push({ type: 'text', text: s.text });
  if (s.refusal) content.push({ type: 'text', text: s.refusal });
  if (s.toolCall)
    content.push({
      type: 'tool_use',
      id: 'toolu_mock_weather',
      name: s.toolCall.name,
      input: JSON.parse(s.toolCall.arguments),
    });
  const stop =
    s.filtered || s.refusal ? 'refusal' : s.toolCall ? 'tool_use' : s.truncated ? 'max_tokens' : 'end_turn';
  const message = {
    id: 'msg_mock',
    type: 'message',
    role: 'assistant',
    model: modelOf(req),
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: s.promptTokens, output_tokens: s.completionTokens },
  };
  if (req.body.stream !== true) return json(200, message);
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const pieces = [
    event('message_start', {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        usage: { input_tokens: s.promptTokens, output_tokens: 1 },
      },
    }),
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      pieces.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const w of words(String(block.text)))
        pieces.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: w } }));
    } else if (block.type === 'thinking') {
      pieces.push(event('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } }));
      pieces.push(
        event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.thinking } }),
      );
      pieces.push(
        event('content_block_delta', {
          index,
          delta: { type: 'signature_delta', signature: block.signature },
        }),
      );
    } else {
      const args = JSON.stringify(block.input);
      pieces.push(event('content_block_start', { index, content_block: { ...block, input: {} } }));
      pieces.push(
        event('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: args.slice(0, 5) },
        }),
      );
      pieces.push(
        event('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: args.slice(5) },
        }),
      );
    }
    pieces.push(event('content_block_stop', { index }));
  });
  pieces.push(
    event('message_delta', {
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: s.completionTokens },
    }),
    event('message_stop', {}),
  );
  return { status: 200, contentType: 'text/event-stream', pieces };
}

function anthropicError(status: number, kind: string, message: string): Reply {
  const type =
    kind === 'rate_limit' ? 'rate_limit_error' : kind === 'server' ? 'api_error' : 'invalid_request_error';
  return json(
    status,
    { type: 'error', error: { type, message } },
    status === 429 ? { 'retry-after': '1' } : undefined,
  );
}

// ── Google Gemini ───────────────────────────────────────────────────────────────────────────────

function geminiAnswer(s: Scripted): Reply {
  const usageMetadata = {
    promptTokenCount: s.promptTokens,
    candidatesTokenCount: s.completionTokens,
    totalTokenCount: s.promptTokens + s.completionTokens,
  };
  if (s.filtered) return json(200, { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata });
  const parts: Record<string, unknown>[] = [];
  if (s.reasoning) parts.push({ text: s.reasoning, thought: true });
  if (s.text) parts.push({ text: s.text });
  if (s.refusal) parts.push({ text: s.refusal });
  if (s.toolCall)
    parts.push({ functionCall: { name: s.toolCall.name, args: JSON.parse(s.toolCall.arguments) } });
  return json(200, {
    candidates: [
      { content: { role: 'model', parts }, finishReason: s.truncated ? 'MAX_TOKENS' : 'STOP', index: 0 },
    ],
    usageMetadata,
    modelVersion: 'mock',
  });
}

function googleError(status: number, kind: string, message: string): Reply {
  const code =
    kind === 'rate_limit' ? 'RESOURCE_EXHAUSTED' : kind === 'server' ? 'INTERNAL' : 'INVALID_ARGUMENT';
  return json(status, { error: { code: status, message, status: code } });
}

// ── Bedrock Converse ────────────────────────────────────────────────────────────────────────────

function converseAnswer(s: Scripted): Reply {
  const content: Record<string, unknown>[] = [];
  if (s.reasoning)
    content.push({ reasoningContent: { reasoningText: { text: s.reasoning, signature: 'sig-mock' } } });
  if (s.text) content.push({ text: s.text });
  if (s.refusal) content.push({ text: s.refusal });
  if (s.filtered) content.push({ text: 'Sorry, the model cannot answer this question.' });
  if (s.toolCall)
    content.push({
      toolUse: { toolUseId: 'tooluse_mock', name: s.toolCall.name, input: JSON.parse(s.toolCall.arguments) },
    });
  const stopReason = s.filtered
    ? 'guardrail_intervened'
    : s.toolCall
      ? 'tool_use'
      : s.truncated
        ? 'max_tokens'
        : 'end_turn';
  return json(200, {
    output: { message: { role: 'assistant', content } },
    stopReason,
    usage: {
      inputTokens: s.promptTokens,
      outputTokens: s.completionTokens,
      totalTokens: s.promptTokens + s.completionTokens,
    },
    metrics: { latencyMs: 1 },
  });
}

function bedrockError(status: number, kind: string, message: string): Reply {
  const type =
    kind === 'rate_limit'
      ? 'ThrottlingException'
      : kind === 'server'
        ? 'InternalServerException'
        : 'ValidationException';
  return json(
    status,
    { message },
    { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
  );
}

// ── Ollama ──────────────────────────────────────────────────────────────────────────────────────

function ollamaAnswer(s: Scripted, req: ShapeRequest): Reply {
  const chat = req.path === '/api/chat';
  const common = {
    model: modelOf(req),
    created_at: new Date(CREATED * 1000).toISOString(),
    done: true,
    done_reason: s.truncated ? 'length' : 'stop',
    prompt_eval_count: s.promptTokens,
    eval_count: s.completionTokens,
  };
  const text = s.text ?? s.refusal ?? '';
  const message: Record<string, unknown> = { role: 'assistant', content: text };
  if (s.reasoning) message.thinking = s.reasoning;
  if (s.toolCall)
    message.tool_calls = [
      { function: { name: s.toolCall.name, arguments: JSON.parse(s.toolCall.arguments) } },
    ];
  if (req.body.stream !== true)
    return json(200, chat ? { ...common, message } : { ...common, response: text });
  const { done: _d, done_reason: _r, prompt_eval_count: _p, eval_count: _e, ...head } = common;
  const pieces = words(text).map(
    (w) =>
      `${JSON.stringify(chat ? { ...head, message: { role: 'assistant', content: w }, done: false } : { ...head, response: w, done: false })}\n`,
  );
  if (chat && s.toolCall)
    pieces.push(
      `${JSON.stringify({ ...head, message: { role: 'assistant', content: '', tool_calls: message.tool_calls }, done: false })}\n`,
    );
  pieces.push(
    `${JSON.stringify(chat ? { ...common, message: { role: 'assistant', content: '' } } : { ...common, response: '' })}\n`,
  );
  return { status: 200, contentType: 'application/x-ndjson', pieces };
}

const plainError = (status: number, _kind: string, message: string): Reply =>
  json(status, { error: message }, status === 429 ? { 'retry-after': '1' } : undefined);

// ── Hugging Face text generation ────────────────────────────────────────────────────────────────

function huggingFaceAnswer(s: Scripted): Reply {
  return json(200, [{ generated_text: s.text ?? s.refusal ?? '' }]);
}

/** The shapes, tried in order: a more specific path before a general one. */
export const SHAPES: WireShape[] = [
  {
    name: 'azure-chat',
    matches: (m, p) => m === 'POST' && AZURE_CHAT.test(p),
    answer: (s, req) => (s.filtered ? azureFilter() : openAiChatAnswer(s, req)),
    error: openAiError,
  },
  {
    name: 'azure-completion',
    matches: (m, p) => m === 'POST' && AZURE_COMPLETIONS.test(p),
    answer: (s, req) => (s.filtered ? azureFilter() : openAiCompletionAnswer(s, req)),
    error: openAiError,
  },
  {
    name: 'openai-chat',
    matches: (m, p) => m === 'POST' && p.endsWith('/chat/completions'),
    answer: openAiChatAnswer,
    error: openAiError,
  },
  {
    name: 'openai-completion',
    matches: (m, p) => m === 'POST' && p.endsWith('/completions'),
    answer: openAiCompletionAnswer,
    error: openAiError,
  },
  {
    name: 'anthropic',
    matches: (m, p) => m === 'POST' && p.endsWith('/messages'),
    answer: anthropicAnswer,
    error: anthropicError,
  },
  {
    name: 'google',
    matches: (m, p) => m === 'POST' && p.endsWith(':generateContent'),
    answer: geminiAnswer,
    error: googleError,
  },
  {
    name: 'bedrock-converse',
    matches: (m, p) => m === 'POST' && /^\/model\/[^/]+\/converse$/.test(p),
    answer: converseAnswer,
    error: bedrockError,
  },
  {
    name: 'ollama',
    matches: (m, p) => m === 'POST' && (p === '/api/chat' || p === '/api/generate'),
    answer: ollamaAnswer,
    error: plainError,
  },
  {
    name: 'hf',
    matches: (m, p) => m === 'POST' && /^\/(?:hf-inference\/)?models\/.+/.test(p),
    answer: huggingFaceAnswer,
    error: plainError,
  },
];

/** The scenario a request body names (`[[scenario:NAME]]`), else `normal`. */
export function scenarioOf(raw: string): Scenario {
  const m = /\[\[scenario:([a-z-]+)\]\]/.exec(raw);
  return m && (SCENARIOS as readonly string[]).includes(m[1]) ? (m[1] as Scenario) : 'normal';
}

function words(text: string): string[] {
  return text.split(/(?<=\s)/).filter((w) => w !== '');
}

/**
 * Starts the server on 127.0.0.1 (and, with `tls`, the same handler behind TLS on a second port).
 * Every request is recorded; an unknown route is a 404 in OpenAI's error shape.
 */
export async function startMockProviders(
  options: {
    tls?: { key: string; cert: string };
    /** A test's own answer for a request (its scenario and raw body), instead of the scenario's script; undefined: the script. */
    script?: (scenario: Scenario, raw: string) => Scripted | undefined;
  } = {},
): Promise<MockProviders> {
  const requests: SeenRequest[] = [];
  const attempts = new Map<string, number>();
  const sockets = new Set<Socket>();

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const target = req.url ?? '/';
      const q = target.indexOf('?');
      const path = q < 0 ? target : target.slice(0, q);
      const query = q < 0 ? '' : target.slice(q + 1);
      const method = req.method ?? 'GET';
      const scenario = scenarioOf(raw);
      const shape = SHAPES.find((s) => s.matches(method, path));
      requests.push({ method, path, query, headers: req.headers, raw, shape: shape?.name ?? '', scenario });
      if (!shape) return write(res, openAiError(404, 'invalid_request', `no route for ${method} ${path}`));
      let body: Record<string, unknown> = {};
      try {
        const parsed: unknown = raw === '' ? {} : JSON.parse(raw);
        if (isRecord(parsed)) body = parsed;
      } catch {
        return write(res, shape.error(400, 'invalid_request', 'the body is not JSON'));
      }
      const key = `${path}\n${raw}`;
      const attempt = attempts.get(key) ?? 0;
      attempts.set(key, attempt + 1);
      if (scenario === 'rate-limit' && attempt === 0)
        return write(res, shape.error(429, 'rate_limit', 'Rate limit reached (mock).'));
      if (scenario === 'server-error')
        return write(
          res,
          shape.error(500, 'server', 'The server had an error while processing your request (mock).'),
        );
      if (scenario === 'bad-request')
        return write(
          res,
          shape.error(400, 'invalid_request', 'Invalid request (mock): this request is refused.'),
        );
      const answer = options.script?.(scenario, raw) ?? scripted(scenario);
      write(res, shape.answer(answer, { method, path, query: new URLSearchParams(query), body }));
    });
  };

  const write = (res: ServerResponse, reply: Reply): void => {
    if ('pieces' in reply) {
      res.writeHead(200, { 'content-type': reply.contentType, 'cache-control': 'no-cache' });
      let i = 0;
      // Each piece on a turn of its own, as a server streaming tokens would send them.
      const next = (): void => {
        if (i < reply.pieces.length) {
          res.write(reply.pieces[i++]);
          setImmediate(next);
        } else res.end();
      };
      next();
      return;
    }
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(reply.body),
      ...reply.headers,
    });
    res.end(reply.body);
  };

  const servers = [createHttpServer(handle)];
  if (options.tls) servers.push(createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handle));
  const ports: number[] = [];
  for (const server of servers) {
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    ports.push(
      await new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
          const address = server.address();
          resolve(typeof address === 'object' && address ? address.port : 0);
        });
      }),
    );
  }
  return {
    url: `http://127.0.0.1:${ports[0]}`,
    ...(options.tls ? { tlsUrl: `https://127.0.0.1:${ports[1]}` } : {}),
    get requests() {
      return requests.slice();
    },
    close: () =>
      new Promise<void>((resolve) => {
        let open = servers.length;
        for (const server of servers) server.close(() => --open === 0 && resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
