import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Secrets } from '../../src/core/secrets.js';
import type { Case, Suite } from '../../src/core/types.js';
import { evaluate } from '../../src/evaluate.js';
import { type CallPolicySettings, withCallPolicy } from '../../src/providers/call-policy.js';
import { getLimiter } from '../../src/providers/limiter.js';
import { createProvider, registerProvider } from '../../src/providers/registry.js';
import type { Provider, ProviderRequest, ProviderResponse, RetryPolicy } from '../../src/providers/types.js';
import '../../src/scorers/index.js';
import { readRun } from '../support/runs.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-call-policy-');
after(tmp.cleanup);

const FAST: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 5_000, timeoutMs: 5_000 };
const SECRET = 'tok-0123456789abcdef';

/** Requests each test provider received, by provider id. */
const received = new Map<string, ProviderRequest[]>();

function record(id: string, request: ProviderRequest): number {
  const list = received.get(id) ?? [];
  list.push(request);
  received.set(id, list);
  return list.length;
}

/** Attempts per prompt of `policy:flaky` (so each job fails its own first attempts). */
const flakyAttempts = new Map<string, number>();

/**
 * Non-HTTP test providers, `policy:<kind>`: `flaky` fails transiently twice per prompt then
 * answers; `fatal` refuses with bad credentials; `counted` answers and counts its calls.
 */
registerProvider({
  pattern: 'policy:<kind>',
  matches: (id) => id.startsWith('policy:'),
  load: async () => (spec) => ({
    id: spec.id,
    label: spec.label ?? spec.id,
    describe: () => ({ id: spec.id, config: spec.config ?? {} }),
    async call(request): Promise<ProviderResponse> {
      record(spec.id, request);
      if (spec.id === 'policy:flaky') {
        const n = (flakyAttempts.get(request.prompt) ?? 0) + 1;
        flakyAttempts.set(request.prompt, n);
        if (n <= 2) return { output: null, error: 'worker busy', failure: { transient: true }, latencyMs: 1 };
      }
      if (spec.id === 'policy:fatal')
        return { output: null, error: 'bad credentials for policy:fatal', fatal: true, latencyMs: 1 };
      if (spec.id === 'policy:leaky')
        return { output: null, error: `upstream rejected token ${SECRET}`, latencyMs: 1 };
      return { output: `answer to ${request.prompt}`, latencyMs: 1 };
    },
  }),
});

/** Policy settings whose waits are recorded and skipped. */
function settings(
  retry: Partial<RetryPolicy> = {},
  secrets: string[] = [],
): { delays: number[]; settings: CallPolicySettings } {
  const delays: number[] = [];
  return {
    delays,
    settings: {
      retry: { ...FAST, ...retry },
      maxConcurrency: 8,
      secrets: new Secrets(secrets),
      sleep: async (ms) => {
        delays.push(ms);
      },
      random: () => 0.5,
    },
  };
}

let endpoints = 0;

/** A provider answering each attempt with the next of `answers` (the last one repeats). */
function scripted(answers: ((request: ProviderRequest) => Promise<ProviderResponse>)[]): {
  provider: Provider;
  requests: ProviderRequest[];
} {
  const requests: ProviderRequest[] = [];
  const key = `test:scripted:${++endpoints}`;
  return {
    requests,
    provider: {
      id: 'scripted',
      label: 'scripted',
      describe: () => ({ id: 'scripted', key }),
      endpoint: { key, shown: 'the scripted service' },
      call(request) {
        requests.push(request);
        return answers[Math.min(requests.length, answers.length) - 1](request);
      },
    },
  };
}

const ok = async (): Promise<ProviderResponse> => ({ output: 'fine', latencyMs: 2 });
const busy = async (): Promise<ProviderResponse> => ({
  output: null,
  error: 'worker busy',
  failure: { transient: true },
  latencyMs: 1,
});
/** Never answers and ignores its signal. */
const hang = (): Promise<ProviderResponse> => new Promise<ProviderResponse>(() => {});

function ask(text: string, signal?: AbortSignal): ProviderRequest {
  return { prompt: text, messages: [{ role: 'user', content: text }], params: {}, signal };
}

describe('call policy around a non-HTTP provider', () => {
  it('retries transient failures with full-jitter backoff, then answers, counting attempts', async () => {
    const { provider, requests } = scripted([busy, busy, busy, ok]);
    const { delays, settings: s } = settings();
    const res = await withCallPolicy(provider, s).call(ask('q'));
    assert.equal(res.error, undefined);
    assert.equal(res.output, 'fine');
    assert.equal(res.attempts, 4);
    assert.equal(res.failure, undefined);
    assert.equal(requests.length, 4);
    assert.deepEqual(delays, [50, 100, 200]);
  });

  it('a provider that answers at once (no timers) is retried, cancelled and reported as any other', async () => {
    const { provider, requests } = scripted([busy, busy, ok]);
    const atOnce: Provider = { ...provider, answersAtOnce: true };
    const { delays, settings: s } = settings();
    const res = await withCallPolicy(atOnce, s).call(ask('q'));
    assert.equal(res.output, 'fine');
    assert.equal(res.attempts, 3);
    assert.equal(requests.length, 3);
    assert.deepEqual(delays, [50, 100]);
    // Cancelled while its attempt runs: the answer that comes is the caller's cancellation.
    const controller = new AbortController();
    const cancelled = scripted([
      async (request) => {
        controller.abort();
        assert.equal(request.signal?.aborted, true);
        return { output: 'late', latencyMs: 1 };
      },
    ]);
    const res2 = await withCallPolicy({ ...cancelled.provider, answersAtOnce: true }, s).call(
      ask('q', controller.signal),
    );
    assert.equal(res2.output, null);
    assert.match(res2.error ?? '', /cancel|abort/i);
    const thrower = scripted([
      async () => {
        throw new Error('broken at once');
      },
    ]);
    const res3 = await withCallPolicy({ ...thrower.provider, answersAtOnce: true }, s).call(ask('q'));
    assert.match(res3.error ?? '', /broken at once/);
  });

  it('gives up after maxAttempts and says how many were made', async () => {
    const { provider, requests } = scripted([busy]);
    const { delays, settings: s } = settings({ maxAttempts: 3 });
    const res = await withCallPolicy(provider, s).call(ask('q'));
    assert.equal(res.output, null);
    assert.equal(res.error, 'worker busy (after 3 attempts)');
    assert.equal(res.attempts, 3);
    assert.equal(requests.length, 3);
    assert.equal(delays.length, 2);
  });

  it('does not retry a failure the provider did not call transient', async () => {
    const { provider, requests } = scripted([
      async () => ({ output: null, error: 'no such model', latencyMs: 1 }),
      ok,
    ]);
    const res = await withCallPolicy(provider, settings().settings).call(ask('q'));
    assert.equal(res.error, 'no such model');
    assert.equal(res.attempts, 1);
    assert.equal(requests.length, 1);
  });

  it('times out an attempt that hangs and ignores its signal, retries, then reports the timeout', async () => {
    const { provider, requests } = scripted([hang]);
    const { delays, settings: s } = settings({ maxAttempts: 2, timeoutMs: 50 });
    const res = await withCallPolicy(provider, s).call(ask('q'));
    assert.equal(res.output, null);
    assert.equal(res.attempts, 2);
    assert.equal(
      res.error,
      'request timed out (no complete response within 50 ms) after 2 attempts (the scripted service)',
    );
    assert.equal(requests.length, 2);
    assert.equal(delays.length, 1);
    // Each attempt was told to stop through its own signal.
    assert.ok(requests.every((r) => r.signal?.aborted === true));
  });

  it('recovers when a hanging attempt is followed by one that answers', async () => {
    const { provider } = scripted([hang, ok]);
    const res = await withCallPolicy(provider, settings({ timeoutMs: 50 }).settings).call(ask('q'));
    assert.equal(res.output, 'fine');
    assert.equal(res.attempts, 2);
  });

  it('abandons an attempt that ignores its signal when the caller cancels', async () => {
    const { provider, requests } = scripted([hang]);
    const controller = new AbortController();
    const pending = withCallPolicy(provider, settings().settings).call(ask('q', controller.signal));
    controller.abort();
    const res = await pending;
    assert.equal(res.error, 'request aborted after 1 attempt');
    assert.equal(requests.length, 1);
  });

  it('halves the endpoint limiter on a rate-limited answer and honours its Retry-After', async () => {
    const { provider } = scripted([
      async () => ({
        output: null,
        error: 'slow down',
        failure: { transient: true, rateLimited: true, retryAfterMs: 1_500 },
        latencyMs: 1,
      }),
      ok,
    ]);
    const { delays, settings: s } = settings();
    const key = provider.endpoint!.key;
    assert.equal(getLimiter(key, 8).limit, 8);
    const res = await withCallPolicy(provider, s).call(ask('q'));
    assert.equal(res.output, 'fine');
    assert.deepEqual(delays, [1_500]);
    const limiter = getLimiter(key, 8);
    assert.equal(limiter.limit, 4);
    assert.deepEqual(limiter.stats, { rateLimited: 1, decreases: 1, lowest: 4, stalled: 0 });
  });

  it('admits only the halved number of attempts at once after a rate limit', async () => {
    let inFlight = 0;
    let entered = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { provider } = scripted([
      async () => ({
        output: null,
        error: '429',
        failure: { transient: true, rateLimited: true },
        latencyMs: 1,
      }),
      ok,
      async () => {
        inFlight++;
        entered++;
        await gate;
        inFlight--;
        return { output: 'fine', latencyMs: 1 };
      },
    ]);
    const wrapped = withCallPolicy(provider, settings().settings);
    await wrapped.call(ask('first'));
    const calls = Array.from({ length: 8 }, (_, i) => wrapped.call(ask(`q${i}`)));
    // Let every call that can start do so.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(entered, 4, 'the limit was halved from 8 to 4');
    assert.equal(inFlight, 4);
    open();
    const results = await Promise.all(calls);
    assert.ok(results.every((r) => r.output === 'fine'));
    assert.equal(entered, 8);
  });

  it('a hung attempt gives its slot back once stalled, so healthy calls go on (it still ends at its deadline)', async () => {
    // Limit 1: without the stall rule the hung attempt would hold the only slot until its deadline.
    let hungDone = false;
    const { provider } = scripted([hang, ok]);
    const wrapped = withCallPolicy(provider, {
      ...settings({ timeoutMs: 3_000, maxAttempts: 1 }).settings,
      maxConcurrency: 1,
    });
    const limiter = getLimiter(`test:scripted:${endpoints}`, 1);
    limiter.stallFloorMs = 20;
    limiter.observe(1); // a typical answer takes 1 ms: a hung one is stalled after the 20 ms floor
    const hung = wrapped.call(ask('hangs')).then((r) => {
      hungDone = true;
      return r;
    });
    const quick = await Promise.all([wrapped.call(ask('a')), wrapped.call(ask('b')), wrapped.call(ask('c'))]);
    assert.deepEqual(
      quick.map((r) => r.output),
      ['fine', 'fine', 'fine'],
    );
    assert.equal(hungDone, false, 'the healthy calls finished while the hung one was still waiting');
    assert.equal(limiter.stats.stalled, 1);
    const end = await hung;
    assert.match(end.error ?? '', /timed out/);
  });

  it('a call waiting for a slot when its caller cancels makes no attempt once the slot frees', async () => {
    // Limit 1: the second call waits for the slot the first holds; a hard stop (Ctrl-C twice) then
    // ends the first, and the freed slot must not start the cancelled second (a request sent, and
    // billed, after the stop).
    const { provider, requests } = scripted([hang, ok]);
    const wrapped = withCallPolicy(provider, { ...settings().settings, maxConcurrency: 1 });
    const controller = new AbortController();
    const first = wrapped.call(ask('first', controller.signal));
    const second = wrapped.call(ask('second', controller.signal));
    assert.equal(requests.length, 1, 'the second call waits for the slot');
    controller.abort();
    const [a, b] = await Promise.all([first, second]);
    assert.match(a.error ?? '', /cancel|abort/i);
    assert.match(b.error ?? '', /cancel|abort/i);
    assert.deepEqual(
      requests.map((r) => r.prompt),
      ['first'],
    );
    // The slot is free again for a later call.
    const later = await wrapped.call(ask('later'));
    assert.equal(later.output, 'fine');
  });

  it('turns a provider that throws into an error result, not retried', async () => {
    const { provider, requests } = scripted([
      async () => {
        throw new Error('boom');
      },
    ]);
    const res = await withCallPolicy(provider, settings().settings).call(ask('q'));
    assert.equal(res.error, 'provider scripted failed (it threw): boom');
    assert.equal(res.attempts, 1);
    assert.equal(requests.length, 1);
  });

  it('retries a transient failure that is also fatal, and passes fatal on once attempts run out', async () => {
    const { provider, requests } = scripted([
      async () => ({
        output: null,
        error: 'nothing listens there',
        failure: { transient: true, explain: (n) => `nothing listens there after ${n} attempts` },
        fatal: true,
        latencyMs: 1,
      }),
    ]);
    const res = await withCallPolicy(provider, settings({ maxAttempts: 2 }).settings).call(ask('q'));
    assert.equal(res.fatal, true);
    assert.equal(res.error, 'nothing listens there after 2 attempts');
    assert.equal(requests.length, 2);
  });

  it('keeps the run’s secrets out of error text', async () => {
    const { provider } = scripted([
      async () => ({ output: null, error: `denied for ${SECRET}`, latencyMs: 1 }),
    ]);
    const res = await withCallPolicy(provider, settings({}, [SECRET]).settings).call(ask('q'));
    assert.equal(res.error, 'denied for [redacted]');
  });

  it('wraps once: a wrapped provider wrapped again is the same provider', async () => {
    const { provider, requests } = scripted([busy]);
    const { settings: s } = settings({ maxAttempts: 2 });
    const once = withCallPolicy(provider, s);
    const twice = withCallPolicy(once, s);
    assert.equal(twice, once);
    await twice.call(ask('q'));
    assert.equal(requests.length, 2, 'retries did not multiply');
  });

  it('applies to embeddings too', async () => {
    let attempts = 0;
    const provider: Provider = {
      id: 'embedder',
      label: 'embedder',
      describe: () => ({ id: 'embedder', n: ++endpoints }),
      call: ok,
      async embed({ texts }) {
        attempts++;
        if (attempts === 1) return { error: 'warming up', failure: { transient: true }, latencyMs: 1 };
        return { embeddings: texts.map((t) => [t.length]), latencyMs: 1 };
      },
    };
    const res = await withCallPolicy(provider, settings().settings).embed!({ texts: ['abc'] });
    assert.deepEqual(res.embeddings, [[3]]);
    assert.equal(attempts, 2);
  });
});

describe('providers from the registry', () => {
  it('get the policy: the run’s secrets are redacted from a non-HTTP provider’s error', async () => {
    const p = await createProvider(
      { id: 'policy:leaky' },
      { env: { SERVICE_TOKEN: SECRET }, maxConcurrency: 2, retry: FAST },
    );
    const res = await p.call(ask('q'));
    assert.equal(res.error, 'upstream rejected token [redacted]');
    assert.equal(res.attempts, 1);
  });

  it('take maxRetries and timeoutMs from their config', async () => {
    const p = await createProvider(
      { id: 'policy:flaky', config: { maxRetries: 1 } },
      { env: {}, maxConcurrency: 2, retry: { ...FAST, baseDelayMs: 1, maxDelayMs: 2 } },
    );
    const res = await p.call(ask('config retries'));
    assert.equal(res.error, 'worker busy (after 2 attempts)');
    assert.equal(res.attempts, 2);
  });
});

function suite(providerId: string, cases: number): Suite {
  const list: Case[] = Array.from({ length: cases }, (_, i) => ({
    id: `case-${i}`,
    vars: { n: String(i) },
    asserts: [{ type: 'contains', value: 'answer' }],
    metadata: {},
  }));
  return {
    id: 's',
    name: 's',
    format: 'test',
    source: { path: join(tmp.dir, 'suite.yaml'), contentHash: 'h', files: [] },
    basePath: tmp.dir,
    prompts: [{ id: 'p', label: 'p', raw: 'question {{n}}' }],
    providers: [{ id: providerId }],
    cases: list,
    scoring: {},
    warnings: [],
  };
}

describe('evaluate() with a non-HTTP provider', () => {
  const retry = { baseDelayMs: 1, maxDelayMs: 2 };

  it('retries each job’s transient failures and records the attempts in the run log', async () => {
    const { runDir, scorecard } = await evaluate({
      suite: suite('policy:flaky', 3),
      runsDir: join(tmp.dir, 'runs'),
      cache: false,
      retry,
    });
    assert.equal(scorecard.counts.pass, 3);
    const { results, manifest } = readRun(runDir);
    assert.equal(manifest.status, 'complete');
    assert.deepEqual(
      results.map((r) => [r.status, r.answer.attempts, r.output]).sort(),
      [0, 1, 2].map((i) => ['pass', 3, `answer to question ${i}`]),
    );
  });

  it('stops the run at a fatal failure, without retrying it', async () => {
    const before = received.get('policy:fatal')?.length ?? 0;
    const { runDir } = await evaluate({
      suite: suite('policy:fatal', 6),
      runsDir: join(tmp.dir, 'runs'),
      cache: false,
      maxConcurrency: 1,
      retry,
    });
    const { results, manifest } = readRun(runDir);
    assert.equal(manifest.status, 'aborted');
    assert.match(manifest.stopReason ?? '', /policy:fatal: bad credentials for policy:fatal/);
    assert.ok(results.length < 6, `${results.length} results`);
    assert.equal((received.get('policy:fatal')?.length ?? 0) - before, results.length);
    assert.ok(results.every((r) => r.status === 'error' && r.answer.attempts === 1));
  });

  it('answers a second run from the response cache: the provider is not called again', async () => {
    const cache = { path: join(tmp.dir, 'cache.sqlite') };
    const first = await evaluate({
      suite: suite('policy:counted', 4),
      runsDir: join(tmp.dir, 'runs'),
      cache,
    });
    const calls = received.get('policy:counted')?.length ?? 0;
    assert.equal(calls, 4);
    const second = await evaluate({
      suite: suite('policy:counted', 4),
      runsDir: join(tmp.dir, 'runs'),
      cache,
    });
    assert.equal(received.get('policy:counted')?.length, calls, 'no call reached the provider');
    assert.ok(readRun(first.runDir).results.every((r) => !r.answer.cached && r.answer.attempts === 1));
    assert.ok(
      readRun(second.runDir).results.every((r) => r.answer.cached === true && r.answer.attempts === 0),
    );
    assert.equal(second.scorecard.counts.pass, 4);
  });
});
