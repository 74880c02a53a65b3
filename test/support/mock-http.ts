/**
 * A generic HTTP endpoint for the `http` provider's tests: it records every request exactly as it
 * arrived (method, path with query, headers, body) and answers by route, deterministically.
 *
 * - `POST|GET /echo…`: JSON `{answer, method, path, contentType, body}`, where `answer` is
 *   `heard: <text>` and the text is the request body's `prompt`, `input` or `messages[-1].content`
 *   field (JSON bodies), else the whole body, else the `q` query parameter.
 * - `/text…`: the same `answer` as plain text.
 * - `/status/<code>`: that status with the body `{"error":{"message":"status <code>"}}`.
 * - `/session`: JSON `{"session":"s-42"}` with the header `x-session-id: s-42`.
 *
 * Run as a script (`node dist/test/support/mock-http.js`) it prints `listening <url>` and serves
 * until killed; `--log FILE` appends each request as a JSON line (used to record promptfoo's requests).
 */
import { appendFileSync, realpathSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SeenRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpTarget {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

function textOf(body: string, query: URLSearchParams): string {
  try {
    const value: unknown = JSON.parse(body);
    if (value && typeof value === 'object') {
      const v = value as Record<string, unknown>;
      for (const key of ['prompt', 'input', 'text']) if (typeof v[key] === 'string') return v[key] as string;
      const messages = v.messages;
      if (Array.isArray(messages) && messages.length > 0) {
        const last = messages[messages.length - 1] as Record<string, unknown>;
        if (typeof last?.content === 'string') return last.content;
      }
    }
  } catch {
    // not JSON: the body itself
  }
  if (body !== '') return body;
  return query.get('q') ?? '';
}

export async function startHttpTarget(opts: { log?: string } = {}): Promise<HttpTarget> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(seen);
      if (opts.log) appendFileSync(opts.log, `${JSON.stringify(seen)}\n`);
      const url = new URL(req.url ?? '/', 'http://target');
      const status = /^\/status\/(\d{3})$/.exec(url.pathname);
      if (status) {
        res.writeHead(Number(status[1]), { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `status ${status[1]}` } }));
        return;
      }
      if (url.pathname === '/session') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-session-id': 's-42' });
        res.end(JSON.stringify({ session: 's-42' }));
        return;
      }
      const answer = `heard: ${textOf(body, url.searchParams)}`;
      if (url.pathname.startsWith('/text')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(answer);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-session-id': 's-7' });
      res.end(
        JSON.stringify({
          answer,
          method: req.method,
          path: req.url,
          contentType: req.headers['content-type'] ?? null,
          body,
        }),
      );
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

const invokedAsScript =
  process.argv[1] !== undefined && realpathSync(resolve(process.argv[1])) === fileURLToPath(import.meta.url);
if (invokedAsScript) {
  const at = process.argv.indexOf('--log');
  const target = await startHttpTarget(at === -1 ? {} : { log: process.argv[at + 1] });
  console.log(`listening ${target.url}`);
}
