// promptfoo's default grader (issue 22): a promptfoo config whose graded assertions name no grader
// is judged by the model promptfoo picks from the keys in the environment — with the same models
// and order as promptfoo 0.123.1's getDefaultProviders — and assay says which and why in the
// console summary, the manifest and the reports. --grader still overrides; with no usable key the
// refusal stays (exit 2, positioned) and names the variables that would have chosen one.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promptfooDefaultGrader } from '../../src/formats/promptfoo/default-grader.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { GRADER_RULES } from '../support/graders.js';
import { type MockServer, startMockServer } from '../support/mock-openai.js';
import { tempDir } from '../support/tmp.js';

const tmp = tempDir('assay-default-grader-');
let mock: MockServer;
before(async () => {
  mock = await startMockServer({ answers: GRADER_RULES });
});
after(async () => {
  await mock.close();
  tmp.cleanup();
});

let n = 0;
/** A suite with one graded (and optionally one embedding) assertion and no grader; runs it. */
async function run(env: Record<string, string>, opts: { similar?: boolean; args?: string[] } = {}) {
  const dir = join(tmp.dir, `s${n++}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'promptfooconfig.yaml'),
    `prompts: ['Say hi politely']
providers: [echo]
tests:
  - assert:
      - type: llm-rubric
        value: RUBRIC-PASS is polite
${opts.similar ? '      - {type: similar, value: Say hi politely, threshold: 0.9}\n' : ''}`,
  );
  const runs = join(dir, 'runs');
  const r = await runCli(
    ['eval', '--no-progress', '--runs-dir', runs, '-o', 'out.html', '-o', 'out.md', ...(opts.args ?? [])],
    {
      cwd: dir,
      env: { ...cleanEnv, ...env },
    },
  );
  const runDir = r.code === 2 ? undefined : join(runs, readdirSync(runs)[0]);
  return { ...r, dir, runDir };
}

describe("promptfoo's default grader", () => {
  it('only OPENAI_API_KEY: gpt-5.6-sol grades and text-embedding-3-large embeds, and every report says so', async () => {
    const before = mock.requests.length;
    const r = await run(
      { OPENAI_API_KEY: 'sk-openai-0123456789', OPENAI_BASE_URL: mock.baseUrl },
      { similar: true },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const sent = mock.requests.slice(before);
    assert.ok(
      sent.some(
        (q) => q.path === '/v1/chat/completions' && (q.body as { model: string }).model === 'gpt-5.6-sol',
      ),
    );
    assert.ok(
      sent.some(
        (q) =>
          q.path === '/v1/embeddings' && (q.body as { model: string }).model === 'text-embedding-3-large',
      ),
    );
    const line =
      "openai:chat:gpt-5.6-sol (embeddings: openai:embedding:text-embedding-3-large) — promptfoo's default grader, since OPENAI_API_KEY is set";
    assert.ok(r.stdout.includes(`Grader: ${line}`), r.stdout);
    const manifest = JSON.parse(readFileSync(join(r.runDir!, 'manifest.json'), 'utf8'));
    assert.deepEqual(manifest.grader, {
      id: 'openai:chat:gpt-5.6-sol',
      embedding: 'openai:embedding:text-embedding-3-large',
      reason: "promptfoo's default grader, since OPENAI_API_KEY is set",
    });
    assert.ok(
      readFileSync(join(r.dir, 'out.html'), 'utf8').includes(
        'gpt-5.6-sol (embeddings: openai:embedding:text-embedding-3-large) — promptfoo&#39;s default grader',
      ),
    );
    assert.ok(readFileSync(join(r.dir, 'out.md'), 'utf8').includes('Grader: openai:chat:gpt-5.6-sol'));
    // Then `assay report` of the run says it too (it reads the manifest).
    const report = await runCli(['report', r.runDir!], { cwd: r.dir, env: cleanEnv });
    assert.ok(report.stdout.includes(`Grader: ${line}`), report.stdout);
  });

  it('only ANTHROPIC_API_KEY: claude-sonnet-4-6 grades, through the Messages API', async () => {
    const before = mock.requests.length;
    const r = await run({ ANTHROPIC_API_KEY: 'sk-ant-0123456789', ANTHROPIC_BASE_URL: mock.url });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const graded = mock.requests.slice(before).find((q) => q.path === '/v1/messages');
    assert.equal((graded!.body as { model: string }).model, 'claude-sonnet-4-6');
    assert.match(
      r.stdout,
      /Grader: anthropic:messages:claude-sonnet-4-6 .* since ANTHROPIC_API_KEY is set and OPENAI_API_KEY is not/,
    );
  });

  it('only MISTRAL_API_KEY: mistral-large-latest; only XAI_API_KEY: grok-4.3', async () => {
    let before = mock.requests.length;
    const m = await run({ MISTRAL_API_KEY: 'mistral-0123456789', MISTRAL_API_BASE_URL: mock.baseUrl });
    assert.equal(m.code, 0, m.stdout + m.stderr);
    assert.equal(
      (mock.requests.slice(before).at(-1)!.body as { model: string }).model,
      'mistral-large-latest',
    );
    assert.match(
      m.stdout,
      /Grader: mistral:mistral-large-latest \(embeddings: mistral:embedding:mistral-embed\)/,
    );
    before = mock.requests.length;
    const x = await run({ XAI_API_KEY: 'xai-0123456789', XAI_BASE_URL: mock.baseUrl });
    assert.equal(x.code, 0, x.stdout + x.stderr);
    assert.equal((mock.requests.slice(before).at(-1)!.body as { model: string }).model, 'grok-4.3');
    assert.match(x.stdout, /Grader: xai:grok-4\.3 .* since XAI_API_KEY is set/);
  });

  it('--grader overrides the environment, and says so', async () => {
    const r = await run(
      { OPENAI_API_KEY: 'sk-openai-0123456789', OPENAI_BASE_URL: mock.baseUrl },
      { args: ['--grader', 'openai:chat:my-judge'] },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Grader: openai:chat:my-judge — given with --grader/);
  });

  it('no usable key: refused before any call, positioned, naming the variables', async () => {
    const before = mock.requests.length;
    const r = await run({});
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /promptfooconfig\.yaml:\d+.*llm-rubric needs a grader model and none is configured: .*; promptfoo would choose one from OPENAI_API_KEY, ANTHROPIC_API_KEY, .*MISTRAL_API_KEY or XAI_API_KEY, and none is set/,
    );
    assert.equal(mock.requests.length, before);
  });

  it('Azure chosen without an endpoint (or --grader azure: without one): exit 2 before any call, naming the grader', async () => {
    const before = mock.requests.length;
    const r = await run({
      AZURE_API_KEY: 'az-key-0123456789',
      AZURE_DEPLOYMENT_NAME: 'judge',
      AZURE_OPENAI_DEPLOYMENT_NAME: 'judge',
    });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /grader azure:chat:judge: no Azure endpoint: set the provider's apiHost/);
    assert.equal(readdirSync(r.dir).includes('runs'), false, 'no run directory');
    const given = await run(
      { OPENAI_API_KEY: 'sk-openai-0123456789', OPENAI_BASE_URL: mock.baseUrl },
      { args: ['--grader', 'azure:chat:mine'] },
    );
    assert.equal(given.code, 2, given.stdout + given.stderr);
    assert.match(given.stderr, /grader azure:chat:mine: no Azure endpoint/);
    assert.equal(mock.requests.length, before);
  });

  it("follows promptfoo's preference order (Azure, Anthropic, Google, Vertex, Mistral, xAI, OpenAI)", () => {
    const id = (env: Record<string, string>) => {
      const c = promptfooDefaultGrader(env);
      return 'spec' in c ? `${c.spec.id} + ${c.spec.embedding?.id}` : 'none';
    };
    const azure = { AZURE_API_KEY: 'a', AZURE_DEPLOYMENT_NAME: 'd', AZURE_OPENAI_DEPLOYMENT_NAME: 'gpt4o' };
    assert.equal(id(azure), 'azure:chat:gpt4o + openai:embedding:text-embedding-3-large');
    assert.equal(
      id({ ...azure, AZURE_OPENAI_EMBEDDING_DEPLOYMENT_NAME: 'emb' }),
      'azure:chat:gpt4o + azure:embedding:emb',
    );
    assert.equal(
      id({ ...azure, MISTRAL_API_KEY: 'm' }),
      'azure:chat:gpt4o + mistral:embedding:mistral-embed',
    );
    // OPENAI_API_KEY beats Azure and Anthropic alike.
    assert.equal(
      id({ ...azure, OPENAI_API_KEY: 'o' }),
      'openai:chat:gpt-5.6-sol + openai:embedding:text-embedding-3-large',
    );
    assert.equal(
      id({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' }),
      'openai:chat:gpt-5.6-sol + openai:embedding:text-embedding-3-large',
    );
    // Azure without both deployment names is no choice.
    assert.equal(id({ AZURE_API_KEY: 'a', AZURE_OPENAI_DEPLOYMENT_NAME: 'x', HOME: tmp.dir }), 'none');
    assert.equal(
      id({ ANTHROPIC_API_KEY: 'a', GEMINI_API_KEY: 'g' }),
      'anthropic:messages:claude-sonnet-4-6 + openai:embedding:text-embedding-3-large',
    );
    assert.equal(
      id({ GEMINI_API_KEY: 'g', MISTRAL_API_KEY: 'm' }),
      'google:gemini-3.8-flash + vertex:embedding:gemini-embedding-001',
    );
    assert.equal(
      id({ GOOGLE_API_KEY: 'g' }),
      'google:gemini-3.8-flash + vertex:embedding:gemini-embedding-001',
    );
    const adc = join(tmp.dir, 'adc.json');
    writeFileSync(adc, '{}');
    const vertex = promptfooDefaultGrader({ GOOGLE_APPLICATION_CREDENTIALS: adc, MISTRAL_API_KEY: 'm' });
    assert.ok('spec' in vertex);
    assert.deepEqual(vertex.spec, {
      id: 'vertex:gemini-3.8-flash',
      config: { region: 'global' },
      embedding: { id: 'vertex:embedding:gemini-embedding-001' },
    });
    assert.equal(
      id({ MISTRAL_API_KEY: 'm', XAI_API_KEY: 'x', HOME: tmp.dir }),
      'mistral:mistral-large-latest + mistral:embedding:mistral-embed',
    );
    assert.equal(
      id({ XAI_API_KEY: 'x', HOME: tmp.dir }),
      'xai:grok-4.3 + openai:embedding:text-embedding-3-large',
    );
    assert.equal(id({ HOME: tmp.dir }), 'none');
  });
});
