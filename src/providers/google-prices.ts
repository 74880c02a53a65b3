/**
 * Gemini list prices as promptfoo 0.123.1 prices them (its Google model table), for text tokens:
 * USD per token, the long-prompt tier, Vertex's own price where it differs, the cached-input
 * rate, the introductory discount of the newest Flash models (until 2027-01-01) and Vertex's
 * multi-region (`us`, `eu`) uplift. Audio, image and video tokens and service tiers are not
 * priced here: a call whose usage reports them is priced as text.
 */
import type { Config } from './http-kit.js';
import { finite } from './http-kit.js';

interface Rate {
  input: number;
  output: number;
  cacheRead?: number;
}

interface GeminiPrice {
  cost: Rate;
  vertexCost?: Rate;
  tiered?: { threshold: number; above: Rate };
  /** Half price until this time (ms). */
  introductoryUntil?: number;
  vertexRegionalMultiplier?: number;
}

const M = 1e6;
const rate = (input: number, output: number, cacheRead?: number): Rate => ({
  input: input / M,
  output: output / M,
  ...(cacheRead !== undefined ? { cacheRead: cacheRead / M } : {}),
});
const INTRO_UNTIL = Date.UTC(2027, 0, 1);

const TABLE = new Map<string, GeminiPrice>();
function add(ids: string[], price: GeminiPrice): void {
  for (const id of ids) TABLE.set(id, price);
}
add(['gemini-3.8-flash', 'gemini-3.7-flash', 'gemini-3.6-flash', 'gemini-flash-latest'], {
  cost: rate(1.5, 7.5, 0.15),
  introductoryUntil: INTRO_UNTIL,
  vertexRegionalMultiplier: 1.1,
});
add(['gemini-3.5-flash'], {
  cost: rate(1.5, 9, 0.15),
  vertexCost: rate(1.5, 9, 0.15),
  vertexRegionalMultiplier: 1.1,
});
add(['gemini-3.5-flash-lite', 'gemini-flash-lite-latest'], {
  cost: rate(0.3, 2.5, 0.03),
  vertexCost: rate(0.3, 2.5, 0.03),
  vertexRegionalMultiplier: 1.1,
});
add(
  [
    'gemini-3.1-pro-preview',
    'gemini-3.1-pro-preview-customtools',
    'gemini-pro-latest',
    'gemini-3-pro-preview',
  ],
  {
    cost: rate(2, 12, 0.2),
    tiered: { threshold: 200_000, above: rate(4, 18, 0.4) },
  },
);
add(['gemini-3.1-flash-lite', 'gemini-3.1-flash-lite-preview'], { cost: rate(0.25, 1.5, 0.025) });
add(['gemini-3-flash-preview'], { cost: rate(0.5, 3, 0.05) });
add(['gemini-2.5-pro'], {
  cost: rate(1.25, 10, 0.125),
  tiered: { threshold: 200_000, above: rate(2.5, 15, 0.25) },
});
add(['gemini-2.5-flash', 'gemini-2.5-flash-preview-04-17'], { cost: rate(0.3, 2.5, 0.03) });
add(['gemini-2.5-flash-lite'], { cost: rate(0.1, 0.4, 0.01) });
add(['gemini-2.0-flash', 'gemini-2.0-flash-001'], {
  cost: rate(0.1, 0.4, 0.025),
  vertexCost: rate(0.15, 0.6, 0.0375),
});
add(['gemini-2.0-flash-lite', 'gemini-2.0-flash-lite-001'], { cost: rate(0.075, 0.3, 0.01875) });
add(
  [
    'gemini-1.5-pro',
    'gemini-1.5-pro-001',
    'gemini-1.5-pro-002',
    'gemini-1.5-pro-latest',
    'gemini-1.5-pro-preview-0409',
    'gemini-1.5-pro-preview-0514',
  ],
  { cost: rate(1.25, 5), tiered: { threshold: 128_000, above: rate(2.5, 10) } },
);
add(
  [
    'gemini-1.5-flash',
    'gemini-1.5-flash-001',
    'gemini-1.5-flash-002',
    'gemini-1.5-flash-latest',
    'gemini-1.5-flash-preview-0514',
  ],
  { cost: rate(0.075, 0.3), tiered: { threshold: 128_000, above: rate(0.15, 0.6) } },
);
add(['gemini-1.5-flash-8b', 'gemini-1.5-flash-8b-001', 'gemini-1.5-flash-8b-latest'], {
  cost: rate(0.0375, 0.15),
  tiered: { threshold: 128_000, above: rate(0.075, 0.3) },
});
add(['gemini-1.0-pro', 'gemini-1.0-pro-001', 'gemini-1.0-pro-002', 'gemini-pro', 'gemini-pro-vision'], {
  cost: rate(0.5, 1.5),
});

/**
 * The cost in USD of a Gemini call, or undefined when the model has no price and the config
 * gives none (`cost`, `inputCost`, `outputCost` override the table, as in promptfoo).
 */
export function geminiCost(
  model: string,
  config: Config,
  tokens: { prompt?: number; completion?: number; cached?: number },
  vertex: { region: string } | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  const { prompt, completion } = tokens;
  if (prompt === undefined || completion === undefined) return undefined;
  const entry = TABLE.get(model);
  const configInput = finite(config.inputCost) ?? finite(config.cost);
  const configOutput = finite(config.outputCost) ?? finite(config.cost);
  if (!entry) {
    if (configInput === undefined || configOutput === undefined) return undefined;
    return prompt * configInput + completion * configOutput;
  }
  const base =
    entry.tiered && prompt > entry.tiered.threshold
      ? entry.tiered.above
      : vertex && entry.vertexCost
        ? entry.vertexCost
        : entry.cost;
  const regional =
    vertex && (vertex.region === 'us' || vertex.region === 'eu') ? (entry.vertexRegionalMultiplier ?? 1) : 1;
  const intro = entry.introductoryUntil !== undefined && nowMs < entry.introductoryUntil ? 0.5 : 1;
  const multiplier = regional * intro;
  const input = configInput ?? base.input * multiplier;
  const output = configOutput ?? base.output * multiplier;
  const cachedRate = configInput ?? (base.cacheRead !== undefined ? base.cacheRead * multiplier : input);
  const cached = Math.min(Math.max(tokens.cached ?? 0, 0), prompt);
  return (prompt - cached) * input + cached * cachedRate + completion * output;
}
