/**
 * The cloud APIs' shapes served by the test mock (mock-openai.ts), with its scripted answers,
 * latency and fault injection: Google's Gemini `generateContent` (AI Studio
 * `/v1beta/models/<m>:generateContent`, Vertex `/v1/projects/<p>/locations/<r>/publishers/<pub>/models/<m>:generateContent`
 * and Vertex express `/v1/publishers/<pub>/models/<m>:generateContent`), Google's OAuth token
 * endpoint (`POST /token`, form-encoded), Hugging Face's inference API
 * (`/hf-inference/models/<m>` or `/models/<m>`: `{inputs, parameters}` → `[{generated_text}]`; its
 * chat API is the OpenAI one at `/v1/chat/completions`) and Bedrock's Converse API
 * (`POST /model/<id>/converse`). Answers, error bodies and refusals take each service's documented
 * shape: a wrong Gemini key is a 400 `API_KEY_INVALID`, a wrong AWS key a 403
 * `UnrecognizedClientException`, a refused token grant a 400 `invalid_grant`.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { isRecord } from '../../src/core/records.js';

/** What the mock's scripted answer gives for a conversation (see mock-openai.ts). */
export interface ScriptedAnswer {
  content: string | null;
  toolCall?: { name: string; arguments: string };
  /** The service's safety filter stops the prompt, or the answer. */
  blocked?: 'prompt' | 'answer';
  truncated: boolean;
  promptTokens: number;
  completionTokens: number;
}

export interface CloudTools {
  answer(turns: { role: unknown; text: string }[], limit: number | undefined): ScriptedAnswer;
  send(res: ServerResponse, status: number, payload: string, extra?: Record<string, string>): void;
  /** The mock's embedding of a text (a hashed bag of words). */
  embed(text: string): number[];
}

/** The access token the mock's token endpoint issues. */
export const MOCK_ACCESS_TOKEN = 'ya29.mock-access-token-0123456789';

const GEMINI =
  /^\/(v1beta|v1alpha|v1)\/(?:projects\/([^/]+)\/locations\/([^/]+)\/)?(?:publishers\/([^/]+)\/)?models\/([^/:]+):(generateContent|batchEmbedContents|predict)$/;
const HF = /^\/(?:hf-inference\/)?models\/(.+)$/;
const BEDROCK = /^\/model\/([^/]+)\/converse$/;

type Api = 'gemini' | 'vertex' | 'token' | 'hf' | 'bedrock';

function apiOf(path: string): Api | undefined {
  const g = GEMINI.exec(path);
  if (g) return g[2] || g[4] ? 'vertex' : 'gemini';
  if (path === '/token') return 'token';
  if (BEDROCK.test(path)) return 'bedrock';
  if (HF.test(path)) return 'hf';
  return undefined;
}

/**
 * The service's own refusal when a request does not carry `requireKey`; undefined when it does,
 * or when the path is not a cloud API's (the caller then applies the OpenAI-shaped check).
 */
export function cloudKeyRefusal(
  path: string,
  headers: IncomingHttpHeaders,
  body: unknown,
  requireKey: string,
): { status: number; body: string; headers?: Record<string, string> } | undefined | 'not-cloud' {
  const api = apiOf(path);
  if (!api) return 'not-cloud';
  switch (api) {
    case 'gemini':
      if (headers['x-goog-api-key'] === requireKey) return undefined;
      return {
        status: 400,
        body: JSON.stringify({
          error: {
            code: 400,
            message: 'API key not valid. Please pass a valid API key.',
            status: 'INVALID_ARGUMENT',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'API_KEY_INVALID',
                domain: 'googleapis.com',
                metadata: { service: 'generativelanguage.googleapis.com' },
              },
            ],
          },
        }),
      };
    case 'vertex':
      if (headers.authorization === `Bearer ${requireKey}` || headers['x-goog-api-key'] === requireKey)
        return undefined;
      return {
        status: 401,
        body: JSON.stringify({
          error: {
            code: 401,
            message:
              'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
            status: 'UNAUTHENTICATED',
          },
        }),
      };
    case 'token': {
      // The "key" of a token request is who asks: the service account's email, or the client id.
      const form = isRecord(body) ? body : {};
      const who = typeof form.assertion === 'string' ? jwtClaims(form.assertion)?.iss : form.client_id;
      if (who === requireKey) return undefined;
      return {
        status: 400,
        body: JSON.stringify({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }),
      };
    }
    case 'hf':
      if (headers.authorization === `Bearer ${requireKey}`) return undefined;
      return { status: 401, body: JSON.stringify({ error: 'Invalid credentials in Authorization header' }) };
    case 'bedrock': {
      const auth = String(headers.authorization ?? '');
      if (auth.startsWith(`AWS4-HMAC-SHA256 Credential=${requireKey}/`) || auth === `Bearer ${requireKey}`)
        return undefined;
      return {
        status: 403,
        body: JSON.stringify({ message: 'The security token included in the request is invalid.' }),
        headers: {
          'x-amzn-errortype':
            'UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/',
        },
      };
    }
  }
}

/** A mock error body in the service's shape, for injected faults (429, 500, `status=`). */
export function cloudErrorBody(path: string, status: number, message: string): string | undefined {
  const api = apiOf(path);
  if (api === 'gemini' || api === 'vertex') {
    const code = status === 429 ? 'RESOURCE_EXHAUSTED' : status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
    return JSON.stringify({ error: { code: status, message, status: code } });
  }
  if (api === 'hf' || api === 'token') return JSON.stringify({ error: message });
  if (api === 'bedrock') return JSON.stringify({ message });
  return undefined;
}

/** Answers a cloud API request; false when the path is none of theirs. */
export function cloudRoute(
  tools: CloudTools,
  method: string | undefined,
  res: ServerResponse,
  path: string,
  body: unknown,
): boolean {
  const api = apiOf(path);
  if (!api || method !== 'POST') return false;
  switch (api) {
    case 'gemini':
    case 'vertex': {
      const [, , , , , model, action] = GEMINI.exec(path)!;
      if (action === 'generateContent') gemini(tools, res, body, model);
      else googleEmbeddings(tools, res, body, action);
      return true;
    }
    case 'token':
      token(tools, res, body);
      return true;
    case 'hf':
      huggingFace(tools, res, body);
      return true;
    case 'bedrock':
      converse(tools, res, body);
      return true;
  }
}

function gemini(tools: CloudTools, res: ServerResponse, body: unknown, model: string): void {
  const bad = (message: string): void =>
    tools.send(res, 400, JSON.stringify({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }));
  if (!isRecord(body) || !Array.isArray(body.contents) || body.contents.length === 0) {
    bad('* GenerateContentRequest.contents: contents is not specified');
    return;
  }
  const turns: { role: unknown; text: string }[] = [];
  const system = body.systemInstruction ?? body.system_instruction;
  if (isRecord(system)) turns.push({ role: 'system', text: partsText(system.parts) });
  for (const c of body.contents) {
    if (!isRecord(c) || !Array.isArray(c.parts)) {
      bad('* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.');
      return;
    }
    if (c.role !== undefined && c.role !== 'user' && c.role !== 'model') {
      bad(`Please use a valid role: user, model.`);
      return;
    }
    turns.push({ role: c.role === 'model' ? 'assistant' : 'user', text: partsText(c.parts) });
  }
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const limit = typeof config.maxOutputTokens === 'number' ? config.maxOutputTokens : undefined;
  const a = tools.answer(turns, limit);
  const usageMetadata = {
    promptTokenCount: a.promptTokens,
    candidatesTokenCount: a.completionTokens,
    totalTokenCount: a.promptTokens + a.completionTokens,
  };
  if (a.blocked === 'prompt') {
    tools.send(
      res,
      200,
      JSON.stringify({
        promptFeedback: {
          blockReason: 'SAFETY',
          safetyRatings: [
            { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH' },
            { category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' },
          ],
        },
        usageMetadata: { promptTokenCount: a.promptTokens, totalTokenCount: a.promptTokens },
        modelVersion: model,
      }),
    );
    return;
  }
  const candidate: Record<string, unknown> = { index: 0 };
  if (a.blocked === 'answer') {
    candidate.finishReason = 'SAFETY';
    candidate.safetyRatings = [
      { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
    ];
  } else {
    const parts: unknown[] = [];
    if (a.content) parts.push({ text: a.content });
    if (a.toolCall)
      parts.push({ functionCall: { name: a.toolCall.name, args: JSON.parse(a.toolCall.arguments) } });
    candidate.content = { parts, role: 'model' };
    candidate.finishReason = a.truncated ? 'MAX_TOKENS' : 'STOP';
  }
  tools.send(res, 200, JSON.stringify({ candidates: [candidate], usageMetadata, modelVersion: model }));
}

/** AI Studio's `batchEmbedContents` (`{requests: [{content: {parts}}]}`) and Vertex's `predict` (`{instances: [{content}]}`). */
function googleEmbeddings(tools: CloudTools, res: ServerResponse, body: unknown, action: string): void {
  const bad = (message: string): void =>
    tools.send(res, 400, JSON.stringify({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }));
  if (action === 'batchEmbedContents') {
    const requests = isRecord(body) ? body.requests : undefined;
    if (!Array.isArray(requests) || requests.length === 0) {
      bad('* BatchEmbedContentsRequest.requests: requests is not specified');
      return;
    }
    const texts = requests.map((r) => (isRecord(r) && isRecord(r.content) ? partsText(r.content.parts) : ''));
    tools.send(res, 200, JSON.stringify({ embeddings: texts.map((t) => ({ values: tools.embed(t) })) }));
    return;
  }
  const instances = isRecord(body) ? body.instances : undefined;
  if (!Array.isArray(instances) || instances.length === 0) {
    bad('instances is required');
    return;
  }
  const predictions = instances.map((i) => {
    const text = isRecord(i) && typeof i.content === 'string' ? i.content : '';
    return {
      embeddings: {
        values: tools.embed(text),
        statistics: { token_count: text.split(/\s+/).filter(Boolean).length, truncated: false },
      },
    };
  });
  tools.send(res, 200, JSON.stringify({ predictions }));
}

function token(tools: CloudTools, res: ServerResponse, body: unknown): void {
  const form = isRecord(body) ? body : {};
  const grant = form.grant_type;
  const ok =
    (grant === 'urn:ietf:params:oauth:grant-type:jwt-bearer' &&
      typeof form.assertion === 'string' &&
      jwtClaims(form.assertion) !== undefined) ||
    (grant === 'refresh_token' &&
      typeof form.refresh_token === 'string' &&
      typeof form.client_id === 'string');
  if (!ok) {
    tools.send(
      res,
      400,
      JSON.stringify({ error: 'invalid_request', error_description: 'Invalid grant_type.' }),
    );
    return;
  }
  tools.send(
    res,
    200,
    JSON.stringify({ access_token: MOCK_ACCESS_TOKEN, expires_in: 3599, token_type: 'Bearer' }),
  );
}

function huggingFace(tools: CloudTools, res: ServerResponse, body: unknown): void {
  if (!isRecord(body) || typeof body.inputs !== 'string') {
    tools.send(res, 400, JSON.stringify({ error: 'Input should be a valid string' }));
    return;
  }
  const params = isRecord(body.parameters) ? body.parameters : {};
  const limit = typeof params.max_new_tokens === 'number' ? params.max_new_tokens : undefined;
  const a = tools.answer([{ role: 'user', text: body.inputs }], limit);
  const text = a.content ?? '';
  const generated = params.return_full_text === true ? `${body.inputs}${text}` : text;
  tools.send(res, 200, JSON.stringify([{ generated_text: generated }]));
}

function converse(tools: CloudTools, res: ServerResponse, body: unknown): void {
  const invalid = (message: string): void =>
    tools.send(res, 400, JSON.stringify({ message }), {
      'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/',
    });
  if (!isRecord(body) || !Array.isArray(body.messages) || body.messages.length === 0) {
    invalid(
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
    return;
  }
  if ('modelId' in body) {
    invalid('1 validation error detected: extraneous key [modelId] is not permitted');
    return;
  }
  const turns: { role: unknown; text: string }[] = [];
  if (Array.isArray(body.system)) turns.push({ role: 'system', text: partsText(body.system) });
  for (const m of body.messages) {
    if (!isRecord(m) || (m.role !== 'user' && m.role !== 'assistant') || !Array.isArray(m.content)) {
      invalid(
        'The model returned the following errors: messages: each message needs a role (user, assistant) and content blocks',
      );
      return;
    }
    turns.push({ role: m.role, text: partsText(m.content) });
  }
  const inference = isRecord(body.inferenceConfig) ? body.inferenceConfig : {};
  const a = tools.answer(turns, typeof inference.maxTokens === 'number' ? inference.maxTokens : undefined);
  const content: unknown[] = [];
  let stopReason = a.truncated ? 'max_tokens' : 'end_turn';
  if (a.blocked) {
    content.push({ text: 'Sorry, the model cannot answer this question.' });
    stopReason = 'guardrail_intervened';
  } else {
    if (a.content) content.push({ text: a.content });
    if (a.toolCall) {
      content.push({
        toolUse: {
          toolUseId: 'tooluse_mock_0',
          name: a.toolCall.name,
          input: JSON.parse(a.toolCall.arguments),
        },
      });
      stopReason = 'tool_use';
    }
  }
  tools.send(
    res,
    200,
    JSON.stringify({
      output: { message: { role: 'assistant', content } },
      stopReason,
      usage: {
        inputTokens: a.promptTokens,
        outputTokens: a.completionTokens,
        totalTokens: a.promptTokens + a.completionTokens,
      },
      metrics: { latencyMs: 1 },
    }),
  );
}

/** The claims of a JWT (unverified: the mock knows no public key; tests verify the signature). */
export function jwtClaims(jwt: string): Record<string, unknown> | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
    const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    if (!isRecord(header) || header.alg !== 'RS256' || !isRecord(claims)) return undefined;
    return claims;
  } catch {
    return undefined;
  }
}

function partsText(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  let text = '';
  for (const p of parts) if (isRecord(p) && typeof p.text === 'string') text += p.text;
  return text;
}
