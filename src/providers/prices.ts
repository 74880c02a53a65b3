/**
 * List prices of common OpenAI models, in USD per million tokens. Used only when a provider config
 * gives no price of its own; a stale entry mis-reports cost, so keep the table small and dated.
 * Source: openai.com/api/pricing (standard tier), 2025.
 */
export interface ModelPrice {
  /** USD per 1M input (prompt) tokens. */
  input: number;
  /** USD per 1M output (completion) tokens. */
  output: number;
}

const PRICES = new Map<string, ModelPrice>(
  Object.entries({
    'gpt-4o': { input: 2.5, output: 10 },
    'gpt-4o-2024-05-13': { input: 5, output: 15 },
    'gpt-4o-mini': { input: 0.15, output: 0.6 },
    'gpt-4.1': { input: 2, output: 8 },
    'gpt-4.1-mini': { input: 0.4, output: 1.6 },
    'gpt-4.1-nano': { input: 0.1, output: 0.4 },
    'gpt-4-turbo': { input: 10, output: 30 },
    'gpt-4': { input: 30, output: 60 },
    'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
    o1: { input: 15, output: 60 },
    'o1-mini': { input: 1.1, output: 4.4 },
    o3: { input: 2, output: 8 },
    'o3-mini': { input: 1.1, output: 4.4 },
    'o4-mini': { input: 1.1, output: 4.4 },
  }),
);

/** Dated snapshots (`-2024-08-06`, `-0125`) and `-preview`/`-latest` share their family's price. */
const SNAPSHOT_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{4}|preview|latest)$/;

/** The list price of a model, matching dated snapshot names to their family; undefined when unknown. */
export function priceFor(model: string): ModelPrice | undefined {
  let name = model.toLowerCase();
  for (let i = 0; i < 3; i++) {
    const price = PRICES.get(name);
    if (price) return price;
    const stripped = name.replace(SNAPSHOT_SUFFIX, '');
    if (stripped === name) return undefined;
    name = stripped;
  }
  return undefined;
}

/** Cost in USD of a call from its token counts and a per-million price. */
export function costOf(price: ModelPrice, promptTokens: number, completionTokens: number): number {
  return (promptTokens * price.input + completionTokens * price.output) / 1_000_000;
}
