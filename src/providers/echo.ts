import type { ProviderSpec } from '../core/types.js';
import type { Provider, ProviderRequest, ProviderResponse } from './types.js';

/** `echo`: the output is the rendered prompt, unchanged (promptfoo's semantics). */
export function createEchoProvider(spec: ProviderSpec): Provider {
  return {
    id: spec.id,
    label: spec.label ?? spec.id,
    describe: () => ({ id: spec.id }),
    cacheable: false,
    async call(request: ProviderRequest): Promise<ProviderResponse> {
      return { output: request.prompt, latencyMs: 0, finishReason: 'stop' };
    },
  };
}
