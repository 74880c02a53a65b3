// The output transforms a job applies before its assertions, in promptfoo's order (spec §2.1
// step 9): the provider's, then the case's. Each assertion may add its own (engine/score.ts).
import type { PromptTemplate } from '../core/types.js';
import { runTransform } from '../runtime/transform.js';

export interface OutputTransforms {
  providerTransform?: string;
  caseTransform?: string;
  vars: Record<string, unknown>;
  /** The prompt template (transforms see its raw text, label, id and config as `context.prompt`). */
  prompt: PromptTemplate;
  basePath?: string;
}

/** The output after the provider's and the case's transforms; throws TransformError when one fails. */
export async function transformOutput(output: unknown, t: OutputTransforms): Promise<unknown> {
  let value = output;
  const prompt = {
    raw: t.prompt.raw,
    label: t.prompt.label,
    id: t.prompt.id,
    ...(t.prompt.config ? { config: t.prompt.config } : {}),
  };
  for (const code of [t.providerTransform, t.caseTransform]) {
    if (code === undefined) continue;
    value = await runTransform(code, value, { vars: t.vars, prompt }, { basePath: t.basePath });
  }
  return value;
}
