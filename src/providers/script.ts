/**
 * `file://path.js|.mjs|.cjs|.ts|.py[:name]`: a provider written as code, as promptfoo loads one.
 *
 * - JavaScript or TypeScript: the module's export `name` (default: its default export, else the
 *   module) is a class whose instances have `callApi(prompt, context, options)` (constructed with
 *   `{id, label, config}`), an object with `callApi`, or a function called as `callApi`.
 * - Python (also `python:path.py[:name]`): the function `name` (default `call_api`) of the file is
 *   called as `call_api(prompt, options, context)` in assay's Python worker, `options` being
 *   `{id, config, env}` as promptfoo gives it.
 *
 * `context` is `{vars, prompt: {raw, label}}`; a JavaScript provider's `options` is `{id, label, config}`. The function
 * returns promptfoo's ProviderResponse: `{output, error?, tokenUsage?, cost?, cached?}` (a bare
 * value is the output). An output that is not text is given as JSON. A thrown error or an `error`
 * is an error result, not retried (running the same code again gives the same answer).
 */

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { secretConfigValues, secretValues } from '../core/redact.js';
import type { ProviderSpec } from '../core/types.js';
import { importModule, MODULE_EXTENSIONS } from '../runtime/import-module.js';
import { callPython, PythonUnavailableError } from '../runtime/python-worker.js';
import { configError, finite, isRecord, redactor, usageOf } from './http-kit.js';
import { scriptProviderRef } from './script-ref.js';
import type { Provider, ProviderContext, ProviderRequest, ProviderResponse } from './types.js';

type CallApi = (prompt: string, context: unknown, options: unknown) => unknown;

/** The provider (the registry wraps it in the call policy). */
export function createScriptAttempts(spec: ProviderSpec, ctx: ProviderContext): Provider {
  const ref = scriptProviderRef(spec.id);
  if (!ref) throw configError(spec, `provider "${spec.id}": expected file://PATH.js|.ts|.py[:function]`);
  const abs = isAbsolute(ref.path) ? ref.path : resolve(ctx.basePath ?? process.cwd(), ref.path);
  if (!existsSync(abs) || !statSync(abs).isFile())
    throw configError(spec, `provider "${spec.id}": file not found: ${abs}`);
  const python = extname(abs).toLowerCase() === '.py';
  if (!python && !MODULE_EXTENSIONS.has(extname(abs).toLowerCase()))
    throw configError(spec, `provider "${spec.id}": not a JavaScript, TypeScript or Python file`);
  const config = spec.config ?? {};
  const options = { id: spec.id, label: spec.label ?? spec.id, config };
  // promptfoo's PythonProvider hands the script its provider options as loaded: id, config, env.
  const pythonOptions = { id: spec.id, config, env: spec.env ?? {} };
  // Secrets, not every variable: a path or a locale in an error is what the user needs to read.
  const redact = redactor([...secretValues(ctx.env), ...secretConfigValues(config)]);
  const digest = createHash('sha256').update(readFileSync(abs)).digest('hex');
  const context = (request: ProviderRequest) => ({
    vars: request.vars ?? {},
    prompt: { raw: request.prompt, label: spec.label ?? spec.id },
  });

  let jsCall: Promise<CallApi> | undefined;
  const loadJs = (): Promise<CallApi> => {
    jsCall ??= importModule(abs).then((mod) => callableOf(mod, ref.name, options));
    return jsCall;
  };

  const answer = async (request: ProviderRequest): Promise<unknown> => {
    if (!python) return (await loadJs())(request.prompt, context(request), options);
    const reply = await callPython(
      {
        kind: 'file',
        path: abs,
        fn: ref.name ?? 'call_api',
        args: [request.prompt, pythonOptions, context(request)],
      },
      { signal: request.signal },
    );
    if (!reply.ok) throw new Error(reply.where ? `${reply.error} (${reply.where})` : reply.error);
    return reply.result;
  };

  return {
    id: spec.id,
    label: spec.label ?? spec.id,
    describe: () => ({ id: spec.id, file: abs, config }),
    endpoint: { key: `script:${abs}`, shown: spec.id },
    requestKey: (request) => ({
      file: abs,
      digest,
      prompt: request.prompt,
      context: context(request),
      options,
    }),
    async call(request: ProviderRequest): Promise<ProviderResponse> {
      const started = performance.now();
      try {
        const result = await answer(request);
        return { ...responseOf(result), latencyMs: performance.now() - started };
      } catch (err) {
        const why =
          err instanceof PythonUnavailableError
            ? `Python is not available: ${err.message}`
            : err instanceof Error
              ? err.message
              : String(err);
        return { output: null, error: redact(`${spec.id}: ${why}`), latencyMs: performance.now() - started };
      }
    },
  };
}

/** The callApi a JavaScript module provides, as promptfoo finds it. */
function callableOf(mod: Record<string, unknown>, name: string | undefined, options: unknown): CallApi {
  const target = name !== undefined ? mod[name] : (mod.default ?? mod);
  if (typeof target === 'function') {
    const proto = (target as { prototype?: Record<string, unknown> }).prototype;
    if (proto && typeof proto.callApi === 'function') {
      const instance = new (target as new (o: unknown) => { callApi: CallApi })(options);
      return instance.callApi.bind(instance);
    }
    return target as CallApi;
  }
  if (isRecord(target) && typeof target.callApi === 'function')
    return (target.callApi as CallApi).bind(target);
  throw new Error(
    `${name ? `the export "${name}"` : 'the module'} is not a provider: expected a class with callApi(), an object with callApi() or a function`,
  );
}

/** promptfoo's ProviderResponse (or a bare value) as assay's. */
function responseOf(result: unknown): Omit<ProviderResponse, 'latencyMs'> {
  if (!isRecord(result) || !('output' in result || 'error' in result)) {
    return { output: typeof result === 'string' ? result : JSON.stringify(result ?? null) };
  }
  if (typeof result.error === 'string' && result.error !== '') return { output: null, error: result.error };
  const value = result.output;
  const out: Omit<ProviderResponse, 'latencyMs'> = {
    output:
      value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value),
  };
  if (value === undefined || value === null) out.nonText = 'nothing';
  const usage = isRecord(result.tokenUsage) ? result.tokenUsage : {};
  Object.assign(out, usageOf(finite(usage.prompt), finite(usage.completion), finite(usage.total), undefined));
  if (finite(result.cost) !== undefined) out.cost = finite(result.cost);
  if (typeof result.finishReason === 'string') out.finishReason = result.finishReason;
  return out;
}
