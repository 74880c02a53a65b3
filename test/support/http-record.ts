// What the http provider's fixtures keep of a request and of a result row, the same way for
// promptfoo's (scripts/promptfoo-http-record.js) and for assay's (test/providers/http-provider.test.ts).
import type { SeenRequest } from './mock-http.js';

/** Headers each client adds on its own (its name, transport); not part of what a config asks for. */
const NOISE = new Set([
  'host',
  'connection',
  'accept',
  'accept-encoding',
  'accept-language',
  'user-agent',
  'sec-fetch-mode',
  'content-length',
  'x-promptfoo-version',
]);

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export function recordedRequest(r: SeenRequest, base: string): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers).sort(([a], [b]) => a.localeCompare(b))) {
    if (!NOISE.has(k) && v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return { method: r.method, url: r.url, headers, body: r.body.replaceAll(base, 'TARGET') };
}

export interface RecordedRow {
  provider: string;
  description: string;
  /** The output as text (an object output as JSON, as assay gives it). */
  output: string | null;
  error?: string;
  success: boolean;
  /** The prompt's label and the row's vars (after file:// vars are read) and the test's vars as written. */
  prompt?: string;
  vars?: unknown;
  testVars?: unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: a promptfoo-shaped result row, read field by field
export function recordedRow(r: any, base: string): RecordedRow {
  const out = r.response?.output;
  const row: RecordedRow = {
    provider: String(r.provider?.label || r.provider?.id || ''),
    description: String(r.testCase?.description ?? ''),
    output: out === undefined || out === null ? null : typeof out === 'string' ? out : JSON.stringify(out),
    success: r.success === true,
    prompt: r.prompt?.label,
    vars: r.vars,
    testVars: r.testCase?.vars,
  };
  if (typeof r.error === 'string' && r.error !== '' && r.failureReason === 2)
    row.error = base ? r.error.split('\n')[0].replaceAll(base, 'TARGET') : r.error.split('\n')[0];
  return row;
}
