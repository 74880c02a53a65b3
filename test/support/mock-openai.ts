/**
 * An OpenAI-compatible HTTP server for tests, benchmarks and the offline examples, with
 * deterministic replies and deterministic fault injection (latency, 429, 500, resets, hangs).
 *
 * Faults come from `opts.faults` and, per request, from a path prefix:
 * `http://127.0.0.1:PORT/_/fail_429=0.1&fail_500=0.05/v1` configures every request under it.
 * Fault draws are seeded by the request (prefix, path, body) and its attempt number (how many
 * earlier requests had the same body), so a rerun meets exactly the same faults.
 *
 * Scripted answers (`opts.answers`) are regex rules tried against the last user message (or, in a
 * conversation without one, such as promptfoo's system-only grading prompts, the last message):
 * that is how tests make the mock answer as a grader would (a JSON verdict, a `Y`, a category).
 *
 * The same answers and faults are served in two other APIs' shapes, for their providers' tests:
 * Anthropic's Messages API (`POST /v1/messages`: `max_tokens` required, the system prompt apart,
 * content blocks back) and Ollama's native API (`/api/chat`, `/api/generate`, `/api/embed`).
 * A chat completion asked with `stream: true` is streamed as OpenAI streams it (server-sent events),
 * and Ollama's as Ollama streams it (a JSON object a line).
 *
 * Google's Gemini (AI Studio and Vertex, with an OAuth token endpoint), Hugging Face's inference API
 * and Bedrock's Converse API are served too (test/support/mock-cloud.ts), with their own error shapes.
 *
 * Embeddings (`/v1/embeddings`) are a hashed bag of words: each lower-cased word adds ±1 to one of
 * 256 dimensions chosen by its hash, and the vector is normalised. Texts sharing most words have a
 * cosine near 1, texts sharing none near 0, so `similar` thresholds behave as with a real model.
 *
 * Run as a script: `node dist/test/support/mock-openai.js --port 18787 [--answers FILE.json]
 * [--latency-ms N] [--faults 'fail_429=0.1'] [--idle-exit-s N]`; prints `listening <url>`.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../../src/core/random.js';
import { isRecord } from '../../src/core/records.js';
import { cloudErrorBody, cloudKeyRefusal, cloudRoute, type ScriptedAnswer } from './mock-cloud.js';

/** A canned answer: the first rule whose `match` (case-insensitive regex) finds the last user message (else the last message) wins. */
export interface AnswerRule {
  match: string;
  /** Also required: this regex (case-insensitive) finds the whole conversation, every message's text joined by newlines. */
  conversation?: string;
  /** Reply text; `$1`-style groups are substituted. */
  reply?: string;
  /** Answer with a tool call instead of text (`arguments` is a JSON string; groups substituted). */
  toolCall?: { name: string; arguments: string };
  /** Answer `content: null` with no tool call (a model that said nothing at all). */
  empty?: boolean;
  /** Cloud APIs only: their safety filter blocks the prompt, or the answer (Gemini, Bedrock guardrails). */
  blocked?: 'prompt' | 'answer';
}

/** Fault injection settings; probabilities are in [0, 1]. */
export interface FaultSettings {
  latencyMs: number;
  latencyJitterMs: number;
  fail429: number;
  fail500: number;
  failReset: number;
  hang: number;
  /** Seconds sent in `Retry-After` with a 429, or `none` to omit the header. */
  retryAfter: number | 'none';
  /** When set, a 429 also carries `retry-after-ms`. */
  retryAfterMs?: number;
  /** Answer 401 unless `Authorization: Bearer <requireKey>` (or Anthropic's `x-api-key: <requireKey>`). */
  requireKey?: string;
  /** Always answer this status with a JSON error. */
  status?: number;
  /** Every answer also quotes the request's headers (as JSON), as a careless server or proxy may. */
  echoHeaders?: boolean;
  /**
   * Every answer also quotes the whole request — its request line (URL as sent), headers and body —
   * in several spellings: as received, URL-decoded, as a JSON string, base64 and HTML-escaped; and
   * Entra ID's token endpoint refuses the grant with a 400 quoting the form it got.
   */
  echoRequest?: boolean;
  /** Inject faults only into the first N attempts of each distinct request (then it succeeds). */
  faultAttempts?: number;
}

export interface MockOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  answers?: AnswerRule[];
  /** Default faults, as settings or in the path-prefix syntax (`fail_429=0.1&latency_ms=5`). */
  faults?: Partial<FaultSettings> | string;
}

export interface MockStats {
  /** API requests (everything but /health and /stats). */
  requests: number;
  byStatus: Record<string, number>;
  resets: number;
  hangs: number;
  inFlight: number;
  maxInFlight: number;
  /** Distinct TCP connections that carried an API request. */
  connections: number;
  requestsPerConnection: { min: number; max: number; mean: number };
}

export interface RecordedRequest {
  method: string;
  /** Path without the fault prefix. */
  path: string;
  /** The fault prefix text, '' when none. */
  faults: string;
  headers: IncomingHttpHeaders;
  /** The request target as sent (query included, fault prefix too). */
  url: string;
  /** Parsed JSON body (a form-encoded one as an object of its fields; undefined for GET or unparseable bodies). */
  body: unknown;
  /** The body exactly as received. */
  raw: string;
}

export interface MockServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `url + '/v1'` */
  baseUrl: string;
  port: number;
  stats(): MockStats;
  /** Zeroes the statistics, the recorded requests and the attempt counters (so a rerun draws the same faults). */
  resetStats(): void;
  /** The last 1000 API requests, oldest first. */
  readonly requests: RecordedRequest[];
  /**
   * Holds every API request that arrives from now on (its body read, no answer) until the returned
   * function is called; then they are answered as usual. Lets a test keep a client busy for as long
   * as it needs, instead of guessing a latency.
   */
  hold(): () => void;
  /** Destroys every open socket (hanging ones too) and stops listening. */
  close(): Promise<void>;
}

const DEFAULT_FAULTS: FaultSettings = {
  latencyMs: 0,
  latencyJitterMs: 0,
  fail429: 0,
  fail500: 0,
  failReset: 0,
  hang: 0,
  retryAfter: 1,
};
const RECORD_LIMIT = 1000;
const EMBEDDING_DIM = 256;
const CREATED = 1_700_000_000;

/** Parses fault settings in the path-prefix syntax (`fail_429=0.1&retry_after=none`); throws on unknown keys. */
export function parseFaults(text: string): Partial<FaultSettings> {
  const out: Partial<FaultSettings> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const num = (min: number, max: number): number => {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
        throw new Error(`mock fault ${key}=${value}: expected a number in [${min}, ${max}]`);
      }
      return n;
    };
    switch (key) {
      case 'latency_ms':
        out.latencyMs = num(0, 600_000);
        break;
      case 'latency_jitter_ms':
        out.latencyJitterMs = num(0, 600_000);
        break;
      case 'fail_429':
        out.fail429 = num(0, 1);
        break;
      case 'fail_500':
        out.fail500 = num(0, 1);
        break;
      case 'fail_reset':
        out.failReset = num(0, 1);
        break;
      case 'hang':
        out.hang = num(0, 1);
        break;
      case 'retry_after':
        out.retryAfter = value === 'none' ? 'none' : num(0, 86_400);
        break;
      case 'retry_after_ms':
        out.retryAfterMs = num(0, 86_400_000);
        break;
      case 'require_key':
        out.requireKey = value;
        break;
      case 'status':
        out.status = num(100, 599);
        break;
      case 'fault_attempts':
        out.faultAttempts = num(0, 1_000_000);
        break;
      case 'echo_headers':
        out.echoHeaders = num(0, 1) === 1;
        break;
      case 'echo_request':
        out.echoRequest = num(0, 1) === 1;
        break;
      default:
        throw new Error(
          `unknown mock fault "${key}" (known: latency_ms, latency_jitter_ms, fail_429, fail_500, fail_reset, hang, retry_after, retry_after_ms, require_key, status, fault_attempts, echo_headers, echo_request)`,
        );
    }
  }
  return out;
}

interface CompiledRule {
  re: RegExp;
  conversation?: RegExp;
  rule: AnswerRule;
}

interface ConnectionSlot {
  epoch: number;
  slot: number;
}

/** Starts the mock on 127.0.0.1 and resolves once it is listening. */
export async function startMockServer(opts: MockOptions = {}): Promise<MockServer> {
  const baseFaults: FaultSettings = {
    ...DEFAULT_FAULTS,
    ...(typeof opts.faults === 'string' ? parseFaults(opts.faults) : (opts.faults ?? {})),
  };
  const rules: CompiledRule[] = (opts.answers ?? []).map((rule, i) => {
    if (typeof rule.match !== 'string') throw new Error(`answers[${i}].match must be a string`);
    try {
      const conversation = rule.conversation !== undefined ? new RegExp(rule.conversation, 'i') : undefined;
      return { re: new RegExp(rule.match, 'i'), conversation, rule };
    } catch (err) {
      throw new Error(`answers[${i}].match is not a valid regex: ${(err as Error).message}`);
    }
  });

  const faultCache = new Map<string, FaultSettings | Error>();
  const attemptsByRequest = new Map<number, number>();
  const sockets = new Set<Socket>();
  const connectionSlots = new WeakMap<Socket, ConnectionSlot>();
  const timers = new Set<NodeJS.Timeout>();
  const recorded: RecordedRequest[] = [];
  let recordNext = 0;
  /** The headers an answer quotes while one is being built (`echo_headers`); answers are built synchronously. */
  let echoing: string | undefined;
  let epoch = 0;
  let stats = freshStats();
  let perConnection: number[] = [];

  function freshStats(): MockStats {
    return {
      requests: 0,
      byStatus: {},
      resets: 0,
      hangs: 0,
      inFlight: 0,
      maxInFlight: 0,
      connections: 0,
      requestsPerConnection: { min: 0, max: 0, mean: 0 },
    };
  }

  function faultsFor(prefix: string): FaultSettings | Error {
    let cached = faultCache.get(prefix);
    if (cached === undefined) {
      try {
        cached = { ...baseFaults, ...parseFaults(prefix) };
      } catch (err) {
        cached = err as Error;
      }
      if (faultCache.size < 256) faultCache.set(prefix, cached);
    }
    return cached;
  }

  function send(res: ServerResponse, status: number, payload: string, extra?: Record<string, string>): void {
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
    writeJson(res, status, payload, extra);
  }

  function writeJson(
    res: ServerResponse,
    status: number,
    payload: string,
    extra?: Record<string, string>,
  ): void {
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
    };
    if (extra) Object.assign(headers, extra);
    res.writeHead(status, headers);
    res.end(payload);
  }

  function sendOpenAiError(
    res: ServerResponse,
    status: number,
    message: string,
    type: string,
    extra?: Record<string, string>,
  ): void {
    send(res, status, JSON.stringify({ error: { message, type, param: null, code: type } }), extra);
  }

  function countConnection(socket: Socket): void {
    let slot = connectionSlots.get(socket);
    if (!slot || slot.epoch !== epoch) {
      slot = { epoch, slot: perConnection.length };
      perConnection.push(0);
      connectionSlots.set(socket, slot);
    }
    perConnection[slot.slot]++;
  }

  function record(req: IncomingMessage, path: string, faults: string, body: unknown, raw: string): void {
    const entry: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      faults,
      headers: req.headers,
      url: req.url ?? '',
      body,
      raw,
    };
    if (recorded.length < RECORD_LIMIT) recorded.push(entry);
    else recorded[recordNext] = entry;
    recordNext = (recordNext + 1) % RECORD_LIMIT;
  }

  function handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    prefix: string,
    text: string,
  ): void {
    // Microsoft Entra ID's token endpoint (client credentials grant), for Azure's bearer tokens:
    // the token names the client; a client secret `wrong` is refused as Entra ID refuses it.
    if (req.method === 'POST' && /^\/[^/]+\/oauth2\/v2\.0\/token$/.test(path)) {
      const form = new URLSearchParams(text);
      record(req, path, prefix, Object.fromEntries(form), text);
      const settings = faultsFor(prefix);
      if (!(settings instanceof Error) && settings.echoRequest) {
        // As a gateway in front of an identity provider may: the refusal quotes the form as it was sent.
        send(
          res,
          400,
          `Bad Request (AADSTS900144): the request body must contain 'resource'. Received: ${text}`,
          {
            'content-type': 'text/plain',
          },
        );
        return;
      }
      if (form.get('grant_type') !== 'client_credentials' || form.get('client_secret') === 'wrong') {
        send(
          res,
          401,
          JSON.stringify({
            error: 'invalid_client',
            error_description: 'AADSTS7000215: Invalid client secret provided.',
          }),
        );
        return;
      }
      send(
        res,
        200,
        JSON.stringify({
          token_type: 'Bearer',
          expires_in: 3599,
          ext_expires_in: 3599,
          access_token: `mock-token-for-${form.get('client_id')}`,
        }),
      );
      return;
    }
    let body: unknown;
    // An error in the cloud API's own shape when the path is one of theirs.
    const sendError = (
      r: ServerResponse,
      status: number,
      message: string,
      type: string,
      extra?: Record<string, string>,
    ): void => {
      const cloud = cloudErrorBody(path, status, message);
      if (cloud !== undefined) send(r, status, cloud, extra);
      else sendOpenAiError(r, status, message, type, extra);
    };
    if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      body = Object.fromEntries(new URLSearchParams(text));
    } else if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        record(req, path, prefix, undefined, text);
        sendError(res, 400, 'request body is not valid JSON', 'invalid_request_error');
        return;
      }
    }
    record(req, path, prefix, body, text);
    const faults = faultsFor(prefix);
    if (faults instanceof Error) {
      sendError(res, 400, faults.message, 'invalid_request_error');
      return;
    }
    if (faults.requireKey !== undefined) {
      const refusal = cloudKeyRefusal(path, req.headers, body, faults.requireKey);
      if (refusal === 'not-cloud') {
        if (
          req.headers.authorization !== `Bearer ${faults.requireKey}` &&
          req.headers['x-api-key'] !== faults.requireKey &&
          req.headers['api-key'] !== faults.requireKey
        ) {
          sendError(res, 401, 'Incorrect API key provided (mock).', 'invalid_api_key');
          return;
        }
      } else if (refusal) {
        send(res, refusal.status, refusal.body, refusal.headers);
        return;
      }
    }

    const requestHash = cyrb53(`${prefix}\n${path}\n${text}`);
    const attempt = attemptsByRequest.get(requestHash) ?? 0;
    attemptsByRequest.set(requestHash, attempt + 1);
    const draw = seededRandom((requestHash ^ Math.imul(attempt + 1, 0x9e3779b1)) >>> 0);
    // Always draw in the same order, so one fault's setting never shifts another's outcome.
    const uHang = draw();
    const uReset = draw();
    const u429 = draw();
    const u500 = draw();
    const uJitter = draw();
    const faulty = faults.faultAttempts === undefined || attempt < faults.faultAttempts;

    if (faulty && uHang < faults.hang) {
      stats.hangs++;
      return;
    }
    const respond = (): void => {
      if (faults.status !== undefined) {
        sendError(res, faults.status, `mock status ${faults.status}`, 'mock_status');
        return;
      }
      if (faulty && uReset < faults.failReset) {
        stats.resets++;
        req.socket.destroy();
        return;
      }
      if (faulty && u429 < faults.fail429) {
        const extra: Record<string, string> = {};
        if (faults.retryAfter !== 'none') extra['retry-after'] = String(faults.retryAfter);
        if (faults.retryAfterMs !== undefined) extra['retry-after-ms'] = String(faults.retryAfterMs);
        sendError(res, 429, 'Rate limit reached (mock).', 'rate_limit_exceeded', extra);
        return;
      }
      if (faulty && u500 < faults.fail500) {
        sendError(res, 500, 'The server had an error while processing your request (mock).', 'server_error');
        return;
      }
      echoing = faults.echoRequest
        ? requestSpellings(req, text)
        : faults.echoHeaders
          ? JSON.stringify(req.headers)
          : undefined;
      try {
        route(req, res, path, body, requestHash);
      } finally {
        echoing = undefined;
      }
    };
    const delay = faults.latencyMs + Math.floor(uJitter * faults.latencyJitterMs);
    if (delay <= 0) {
      respond();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      respond();
    }, delay);
    timers.add(timer);
  }

  function route(req: IncomingMessage, res: ServerResponse, path: string, body: unknown, hash: number): void {
    const method = req.method;
    if (method === 'POST' && path === '/v1/chat/completions') {
      chat(res, body, hash);
      return;
    }
    // Azure OpenAI: /openai/deployments/<deployment>/{chat/completions,completions,embeddings}?api-version=…
    const azure = /^\/openai\/deployments\/[^/]+\/(chat\/completions|completions|embeddings)$/.exec(path);
    if (method === 'POST' && azure) {
      if (azure[1] === 'chat/completions') chat(res, body, hash);
      else if (azure[1] === 'embeddings') embeddings(res, body);
      else legacyCompletion(res, body, hash);
      return;
    }
    if (method === 'POST' && path === '/v1/embeddings') {
      embeddings(res, body);
      return;
    }
    if (method === 'POST' && path === '/v1/messages') {
      anthropicMessages(res, body, hash);
      return;
    }
    if (method === 'POST' && (path === '/api/chat' || path === '/api/generate')) {
      ollama(res, body, path === '/api/chat' ? 'chat' : 'generate');
      return;
    }
    if (method === 'POST' && path === '/api/embed') {
      ollamaEmbed(res, body);
      return;
    }
    if (method === 'GET' && path === '/v1/models') {
      const models = [{ id: 'mock-model', object: 'model', created: CREATED, owned_by: 'assay-mock' }];
      send(res, 200, JSON.stringify({ object: 'list', data: models }));
      return;
    }
    if (
      cloudRoute({ answer, send, embed: (t) => bagOfWordsVector(t, EMBEDDING_DIM) }, method, res, path, body)
    )
      return;
    sendOpenAiError(res, 404, `no route for ${method} ${path}`, 'not_found');
  }

  /** The scripted answer to a conversation (every message's text, roles), whatever the API's shape. */
  function answer(turns: { role: unknown; text: string }[], limit: number | undefined): ScriptedAnswer {
    let promptTokens = 0;
    let lastUser: string | undefined;
    let last = '';
    for (const t of turns) {
      promptTokens += wordCount(t.text);
      if (t.role === 'user') lastUser = t.text;
      last = t.text;
    }
    const asked = lastUser ?? last;
    let content: string | null = lastUser ?? '';
    let toolCall: { name: string; arguments: string } | undefined;
    let blocked: ScriptedAnswer['blocked'];
    for (const { re, conversation, rule } of rules) {
      const m = re.exec(asked);
      if (!m || (conversation && !conversation.test(turns.map((t) => t.text).join('\n')))) continue;
      blocked = rule.blocked;
      if (rule.toolCall) {
        content = null;
        toolCall = { name: rule.toolCall.name, arguments: substitute(rule.toolCall.arguments, m) };
      } else if (rule.empty) {
        content = null;
      } else {
        content = substitute(rule.reply ?? '', m);
      }
      break;
    }
    if (echoing !== undefined && content !== null) content = `${content}\nheaders: ${echoing}`;
    let truncated = false;
    let completionTokens = 0;
    if (content !== null) {
      completionTokens = wordCount(content);
      if (limit !== undefined && limit < completionTokens) {
        content = firstWords(content, limit);
        completionTokens = limit;
        truncated = true;
      }
    }
    return { content, toolCall, blocked, truncated, promptTokens, completionTokens };
  }

  /** The turns of a request's `messages` array, or an error message for a malformed one. */
  function turnsOf(messages: unknown): { role: unknown; text: string }[] | string {
    if (!Array.isArray(messages) || messages.length === 0) return "'messages' must be a non-empty array";
    const turns: { role: unknown; text: string }[] = [];
    for (const m of messages) {
      if (!isRecord(m)) return 'each message must be an object';
      turns.push({ role: m.role, text: contentText(m.content) });
    }
    return turns;
  }

  function chat(res: ServerResponse, body: unknown, hash: number): void {
    const turns = isRecord(body) ? turnsOf(body.messages) : "'messages' must be a non-empty array";
    if (!isRecord(body) || typeof turns === 'string') {
      sendOpenAiError(
        res,
        400,
        typeof turns === 'string' ? turns : 'body must be an object',
        'invalid_request_error',
      );
      return;
    }
    const model = typeof body.model === 'string' ? body.model : 'mock-model';
    const a = answer(turns, maxTokens(body));
    if (body.stream === true) {
      chatStream(res, body, a, model, hash);
      return;
    }
    const message: Record<string, unknown> = { role: 'assistant', content: a.content };
    if (a.toolCall) message.tool_calls = [{ id: 'call_mock_0', type: 'function', function: a.toolCall }];
    const reply = {
      id: `chatcmpl-mock-${hash.toString(36)}`,
      object: 'chat.completion',
      created: CREATED,
      model,
      choices: [
        {
          index: 0,
          message,
          logprobs: null,
          finish_reason: a.toolCall ? 'tool_calls' : a.truncated ? 'length' : 'stop',
        },
      ],
      usage: {
        prompt_tokens: a.promptTokens,
        completion_tokens: a.completionTokens,
        total_tokens: a.promptTokens + a.completionTokens,
      },
    };
    send(res, 200, JSON.stringify(reply));
  }

  /**
   * A chat completion as server-sent events, as OpenAI streams it: a role chunk, the content a word
   * at a time (or a tool call in two fragments), a finish chunk, the usage chunk when
   * `stream_options.include_usage` asks, then `data: [DONE]`. Each event is written on its own turn.
   */
  function chatStream(
    res: ServerResponse,
    body: Record<string, unknown>,
    a: ReturnType<typeof answer>,
    model: string,
    hash: number,
  ): void {
    const base = {
      id: `chatcmpl-mock-${hash.toString(36)}`,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
    };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
    const events = [chunk({ role: 'assistant', content: '' })];
    if (a.toolCall) {
      const args = a.toolCall.arguments;
      const half = Math.floor(args.length / 2);
      events.push(
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_mock_0',
              type: 'function',
              function: { name: a.toolCall.name, arguments: args.slice(0, half) },
            },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }),
      );
    } else
      for (const word of (a.content ?? '').split(/(?<=\s)/))
        if (word !== '') events.push(chunk({ content: word }));
    events.push(chunk({}, a.toolCall ? 'tool_calls' : a.truncated ? 'length' : 'stop'));
    const options = isRecord(body.stream_options) ? body.stream_options : {};
    if (options.include_usage === true)
      events.push(
        JSON.stringify({
          ...base,
          choices: [],
          usage: {
            prompt_tokens: a.promptTokens,
            completion_tokens: a.completionTokens,
            total_tokens: a.promptTokens + a.completionTokens,
          },
        }),
      );
    events.push('[DONE]');
    writeStream(
      res,
      'text/event-stream',
      events.map((e) => `data: ${e}\n\n`),
    );
  }

  /** Writes a streamed 200 answer a piece per event-loop turn (so a client sees them arrive apart). */
  function writeStream(res: ServerResponse, contentType: string, pieces: string[]): void {
    stats.byStatus[200] = (stats.byStatus[200] ?? 0) + 1;
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
    let i = 0;
    const next = (): void => {
      if (res.destroyed) return;
      if (i >= pieces.length) {
        res.end();
        return;
      }
      res.write(pieces[i++]);
      setImmediate(next);
    };
    next();
  }

  /** The legacy completions API (`prompt` in, `choices[0].text` out), as Azure still serves it. */
  function legacyCompletion(res: ServerResponse, body: unknown, hash: number): void {
    if (!isRecord(body) || typeof body.prompt !== 'string') {
      sendOpenAiError(res, 400, "'prompt' must be a string", 'invalid_request_error');
      return;
    }
    const a = answer([{ role: 'user', text: body.prompt }], maxTokens(body));
    const reply = {
      id: `cmpl-mock-${hash.toString(36)}`,
      object: 'text_completion',
      created: CREATED,
      model: typeof body.model === 'string' ? body.model : 'mock-model',
      choices: [
        { index: 0, text: a.content ?? '', logprobs: null, finish_reason: a.truncated ? 'length' : 'stop' },
      ],
      usage: {
        prompt_tokens: a.promptTokens,
        completion_tokens: a.completionTokens,
        total_tokens: a.promptTokens + a.completionTokens,
      },
    };
    send(res, 200, JSON.stringify(reply));
  }

  /** Anthropic's Messages API (`POST /v1/messages`): the system prompt apart, content blocks back. */
  function anthropicMessages(res: ServerResponse, body: unknown, hash: number): void {
    const turns = isRecord(body) ? turnsOf(body.messages) : "'messages' must be a non-empty array";
    if (!isRecord(body) || typeof turns === 'string') {
      sendOpenAiError(
        res,
        400,
        typeof turns === 'string' ? turns : 'body must be an object',
        'invalid_request_error',
      );
      return;
    }
    if (typeof body.max_tokens !== 'number') {
      sendOpenAiError(res, 400, 'max_tokens: Field required', 'invalid_request_error');
      return;
    }
    if (turns.some((t) => t.role === 'system')) {
      sendOpenAiError(
        res,
        400,
        'messages: system messages go in the top-level `system` parameter',
        'invalid_request_error',
      );
      return;
    }
    const system = typeof body.system === 'string' ? body.system : contentText(body.system);
    const a = answer(system ? [{ role: 'system', text: system }, ...turns] : turns, body.max_tokens);
    const content: unknown[] = [];
    if (a.content !== null && a.content !== '') content.push({ type: 'text', text: a.content });
    if (a.toolCall)
      content.push({
        type: 'tool_use',
        id: 'toolu_mock_0',
        name: a.toolCall.name,
        input: JSON.parse(a.toolCall.arguments),
      });
    const reply = {
      id: `msg_mock_${hash.toString(36)}`,
      type: 'message',
      role: 'assistant',
      model: typeof body.model === 'string' ? body.model : 'mock-model',
      content,
      stop_reason: a.toolCall ? 'tool_use' : a.truncated ? 'max_tokens' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: a.promptTokens, output_tokens: a.completionTokens },
    };
    if (body.stream === true && !a.toolCall) {
      // Anthropic's events: message_start, a text block's deltas a word at a time, message_delta, message_stop.
      const event = (type: string, data: Record<string, unknown>) =>
        `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
      const words = (a.content ?? '').split(/(?<=\s)/).filter((w) => w !== '');
      const pieces = [
        event('message_start', {
          message: {
            ...reply,
            content: [],
            stop_reason: null,
            usage: { input_tokens: a.promptTokens, output_tokens: 1 },
          },
        }),
        event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
        event('ping', {}),
        ...words.map((w) =>
          event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: w } }),
        ),
        event('content_block_stop', { index: 0 }),
        event('message_delta', {
          delta: { stop_reason: reply.stop_reason, stop_sequence: null },
          usage: { output_tokens: a.completionTokens },
        }),
        event('message_stop', {}),
      ];
      writeStream(res, 'text/event-stream', pieces);
      return;
    }
    send(res, 200, JSON.stringify(reply));
  }

  /** Ollama's native API: `/api/chat` (messages) and `/api/generate` (a prompt), whole or streamed. */
  function ollama(res: ServerResponse, body: unknown, route: 'chat' | 'generate'): void {
    if (!isRecord(body) || typeof body.model !== 'string') {
      send(res, 400, JSON.stringify({ error: 'model is required' }));
      return;
    }
    if (body.stream !== false && body.stream !== true) {
      send(res, 400, JSON.stringify({ error: 'this mock needs stream: false or stream: true' }));
      return;
    }
    let turns: { role: unknown; text: string }[] | string;
    if (route === 'chat') turns = turnsOf(body.messages);
    else if (typeof body.prompt !== 'string') turns = 'prompt must be a string';
    else
      turns = [
        ...(typeof body.system === 'string' ? [{ role: 'system', text: body.system }] : []),
        { role: 'user', text: body.prompt },
      ];
    if (typeof turns === 'string') {
      send(res, 400, JSON.stringify({ error: turns }));
      return;
    }
    const options = isRecord(body.options) ? body.options : {};
    const limit = typeof options.num_predict === 'number' ? options.num_predict : undefined;
    const a = answer(turns, limit);
    const common = {
      model: body.model,
      created_at: new Date(CREATED * 1000).toISOString(),
      done: true,
      done_reason: a.truncated ? 'length' : 'stop',
      prompt_eval_count: a.promptTokens,
      eval_count: a.completionTokens,
    };
    if (body.stream === true && !a.toolCall) {
      // Newline-delimited JSON, a word a line, then the last line with the counts.
      const { done: _done, done_reason: _reason, prompt_eval_count: _p, eval_count: _e, ...head } = common;
      const words = (a.content ?? '').split(/(?<=\s)/).filter((w) => w !== '');
      const lines = words.map((w) =>
        JSON.stringify(
          route === 'chat'
            ? { ...head, message: { role: 'assistant', content: w }, done: false }
            : { ...head, response: w, done: false },
        ),
      );
      lines.push(
        JSON.stringify(
          route === 'chat'
            ? { ...common, message: { role: 'assistant', content: '' } }
            : { ...common, response: '' },
        ),
      );
      writeStream(
        res,
        'application/x-ndjson',
        lines.map((l) => `${l}\n`),
      );
      return;
    }
    if (route === 'generate') {
      send(res, 200, JSON.stringify({ ...common, response: a.content ?? '' }));
      return;
    }
    const message: Record<string, unknown> = { role: 'assistant', content: a.content ?? '' };
    if (a.toolCall)
      message.tool_calls = [
        { function: { name: a.toolCall.name, arguments: JSON.parse(a.toolCall.arguments) } },
      ];
    send(res, 200, JSON.stringify({ ...common, message }));
  }

  /** Ollama's `/api/embed`: `input` a text or a list of texts. */
  function ollamaEmbed(res: ServerResponse, body: unknown): void {
    const input = isRecord(body) ? body.input : undefined;
    const inputs = typeof input === 'string' ? [input] : input;
    if (!Array.isArray(inputs) || inputs.length === 0 || inputs.some((x) => typeof x !== 'string')) {
      send(res, 400, JSON.stringify({ error: 'input must be a string or a list of strings' }));
      return;
    }
    const embeddings = inputs.map((x) => bagOfWordsVector(x as string, EMBEDDING_DIM));
    send(res, 200, JSON.stringify({ model: isRecord(body) ? body.model : 'mock', embeddings }));
  }

  function embeddings(res: ServerResponse, body: unknown): void {
    const input = isRecord(body) ? body.input : undefined;
    const inputs = Array.isArray(input) && input.every((x) => typeof x === 'string') ? input : [input];
    if (inputs.length === 0 || inputs.some((x) => x === undefined || x === null)) {
      sendOpenAiError(res, 400, "'input' is required", 'invalid_request_error');
      return;
    }
    let tokens = 0;
    const data = inputs.map((x, index) => {
      const text = typeof x === 'string' ? x : JSON.stringify(x);
      tokens += wordCount(text);
      return { object: 'embedding', index, embedding: bagOfWordsVector(text, EMBEDDING_DIM) };
    });
    const model = isRecord(body) && typeof body.model === 'string' ? body.model : 'mock-embedding';
    send(
      res,
      200,
      JSON.stringify({ object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } }),
    );
  }

  function currentStats(): MockStats {
    const n = perConnection.length;
    let min = n > 0 ? Number.POSITIVE_INFINITY : 0;
    let max = 0;
    let sum = 0;
    for (const c of perConnection) {
      if (c < min) min = c;
      if (c > max) max = c;
      sum += c;
    }
    return {
      ...stats,
      byStatus: { ...stats.byStatus },
      connections: n,
      requestsPerConnection: { min, max, mean: n > 0 ? sum / n : 0 },
    };
  }

  let held: (() => void)[] | undefined;
  function hold(): () => void {
    held ??= [];
    return () => {
      const queued = held ?? [];
      held = undefined;
      for (const answer of queued) answer();
    };
  }

  function resetStats(): void {
    const inFlight = stats.inFlight;
    stats = freshStats();
    stats.inFlight = inFlight;
    stats.maxInFlight = inFlight;
    perConnection = [];
    epoch++;
    attemptsByRequest.clear();
    recorded.length = 0;
    recordNext = 0;
  }

  const server = createServer({ noDelay: true }, (req, res) => {
    let path = req.url ?? '/';
    let prefix = '';
    if (path.startsWith('/_/')) {
      const end = path.indexOf('/', 3);
      prefix = end < 0 ? path.slice(3) : path.slice(3, end);
      path = end < 0 ? '/' : path.slice(end);
    }
    const q = path.indexOf('?');
    const query = q < 0 ? '' : path.slice(q + 1);
    if (q >= 0) path = path.slice(0, q);

    if (path === '/health') return writeJson(res, 200, '{"status":"ok"}');
    if (path === '/stats') {
      const snapshot = currentStats();
      if (new URLSearchParams(query).get('reset') === '1') resetStats();
      return writeJson(res, 200, JSON.stringify(snapshot));
    }

    stats.requests++;
    stats.inFlight++;
    if (stats.inFlight > stats.maxInFlight) stats.maxInFlight = stats.inFlight;
    countConnection(req.socket);
    res.once('close', () => {
      stats.inFlight--;
    });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
      if (held) held.push(() => handleApi(req, res, path, prefix, text));
      else handleApi(req, res, path, prefix, text);
    });
  });
  // Undici reads this hint; a long idle window keeps benchmark connections warm.
  server.keepAliveTimeout = 30_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;

  return {
    url,
    baseUrl: `${url}/v1`,
    port,
    stats: currentStats,
    resetStats,
    hold,
    get requests(): RecordedRequest[] {
      return recorded.length < RECORD_LIMIT
        ? recorded.slice()
        : [...recorded.slice(recordNext), ...recorded.slice(0, recordNext)];
    },
    close(): Promise<void> {
      closing ??= new Promise<void>((resolveClose) => {
        held = undefined;
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolveClose());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (isRecord(part) && typeof part.text === 'string') text += part.text;
  }
  return text;
}

function maxTokens(body: Record<string, unknown>): number | undefined {
  const limit = body.max_completion_tokens ?? body.max_tokens;
  return typeof limit === 'number' && Number.isFinite(limit) && limit >= 0 ? Math.floor(limit) : undefined;
}

function wordCount(text: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space =
      c === 32 || (c >= 9 && c <= 13) || c === 160 || c === 0x2028 || c === 0x2029 || c === 0x3000;
    if (!space && !inWord) count++;
    inWord = !space;
  }
  return count;
}

/** The text up to the end of its `n`-th word, original spacing kept. */
function firstWords(text: string, n: number): string {
  if (n <= 0) return '';
  const re = /\S+/g;
  let end = 0;
  for (let i = 0; i < n; i++) {
    const m = re.exec(text);
    if (!m) break;
    end = m.index + m[0].length;
  }
  return text.slice(0, end).trimStart();
}

function substitute(template: string, match: RegExpExecArray): string {
  return template.replace(/\$(\d+)/g, (_, n: string) => match[Number(n)] ?? '');
}

/** 53-bit string hash (cyrb53): few collisions across the ~10^5 distinct bodies of a benchmark. */
function cyrb53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * A hashed bag-of-words vector: each lower-cased word adds ±1 (sign from the hash) to the dimension
 * its hash picks; normalised to unit length (all zeros for a text without words).
 */
function bagOfWordsVector(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = cyrb53(word);
    v[h % dim] += h % (2 * dim) < dim ? 1 : -1;
  }
  const norm = Math.hypot(...v);
  return norm > 0 ? v.map((x) => x / norm) : v;
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(resolve(entry)) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

async function runCli(argv: string[]): Promise<void> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (
      !['--port', '--answers', '--latency-ms', '--faults', '--idle-exit-s'].includes(flag) ||
      value === undefined
    ) {
      throw new Error(
        `unexpected argument "${flag}"; usage: mock-openai [--port N] [--answers FILE.json] [--latency-ms N] [--faults SPEC] [--idle-exit-s N]`,
      );
    }
    flags.set(flag, value);
    i++;
  }
  const number = (flag: string): number | undefined => {
    const raw = flags.get(flag);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${flag} expects a non-negative number, got "${raw}"`);
    return n;
  };
  const faults = parseFaults(flags.get('--faults') ?? '');
  const latency = number('--latency-ms');
  if (latency !== undefined) faults.latencyMs = latency;
  let answers: AnswerRule[] | undefined;
  const answersFile = flags.get('--answers');
  if (answersFile !== undefined) {
    const parsed: unknown = JSON.parse(readFileSync(answersFile, 'utf8'));
    const list = Array.isArray(parsed) ? parsed : isRecord(parsed) ? parsed.answers : undefined;
    if (!Array.isArray(list)) throw new Error(`${answersFile}: expected a JSON array of {match, reply}`);
    answers = list as AnswerRule[];
  }
  const server = await startMockServer({ port: number('--port') ?? 0, answers, faults });
  process.stdout.write(`listening ${server.url}\n`);
  const shutdown = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  const idleExit = number('--idle-exit-s');
  if (idleExit !== undefined && idleExit > 0) {
    let seen = -1;
    let idleSince = Date.now();
    setInterval(
      () => {
        const s = server.stats();
        if (s.requests !== seen || s.inFlight > 0) {
          seen = s.requests;
          idleSince = Date.now();
        } else if (Date.now() - idleSince >= idleExit * 1000) {
          shutdown();
        }
      },
      Math.min(1000, idleExit * 1000),
    );
  }
}

if (isMainModule()) {
  runCli(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`mock-openai: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  });
}

/** A request (request line, headers, body) in the spellings an echoing server may give it. */
function requestSpellings(req: IncomingMessage, body: string): string {
  const line = `${req.method} ${req.url}`;
  const headers = JSON.stringify(req.headers);
  const raw = `${line}\n${headers}\n${body}`;
  const decode = (text: string): string => {
    try {
      return decodeURIComponent(text.replaceAll('+', ' '));
    } catch {
      return text;
    }
  };
  const decoded = `${decode(line)}\n${headers}\n${decode(body)}`;
  const html = raw.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return [raw, decoded, JSON.stringify(raw), Buffer.from(raw).toString('base64'), html].join('\n');
}
