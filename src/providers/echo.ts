import { textAnswer } from '../core/answer.js';
import type { ProviderSpec } from '../core/types.js';
import type { Provider, ProviderRequest, ProviderResponse } from './types.js';

/**
 * `echo`: the answer is the rendered prompt, unchanged, as one text block (dialect `echo`), as
 * promptfoo's echo gives it: no finish reason (so `finish-reason` fails), cost 0 and zero tokens
 * (so `cost` and token checks pass).
 */
export function createEchoProvider(spec: ProviderSpec): Provider {
  return {
    id: spec.id,
    label: spec.label ?? spec.id,
    describe: () => ({ id: spec.id }),
    cacheable: false,
    answersAtOnce: true,
    async call(request: ProviderRequest): Promise<ProviderResponse> {
      return {
        answer: textAnswer('echo', request.prompt),
        latencyMs: 0,
        cost: 0,
        usage: { total: 0, prompt: 0, completion: 0 },
      };
    },
  };
}
