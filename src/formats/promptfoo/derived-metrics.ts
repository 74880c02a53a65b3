// `derivedMetrics` (spec §6.3): a list of `{name, value}` where value is a mathjs-style expression
// over a column's named scores. Checked here so a typo in an expression is an error at load, with
// its position, rather than a metric that silently stays 0.
import { ExpressionSyntaxError, parseExpression } from '../../core/expression.js';
import type { DerivedMetricSpec } from '../../core/types.js';
import { errorAt, isRecord, type LoadContext } from './context.js';
import type { YamlFile } from './source.js';

/** The config's derived metrics, or undefined when it has none (errors are reported on `ctx`). */
export function parseDerivedMetrics(
  ctx: LoadContext,
  raw: unknown,
  yaml: YamlFile,
): DerivedMetricSpec[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    errorAt(ctx, yaml.locate(['derivedMetrics']), '`derivedMetrics` must be a list of {name, value} entries');
    return undefined;
  }
  const specs: DerivedMetricSpec[] = [];
  for (const [i, entry] of raw.entries()) {
    const at = (key?: string) => yaml.locate(key ? ['derivedMetrics', i, key] : ['derivedMetrics', i]);
    if (!isRecord(entry)) {
      errorAt(ctx, at(), `derivedMetrics[${i}] must be a mapping with \`name\` and \`value\``);
      continue;
    }
    const { name, value } = entry;
    if (typeof name !== 'string' || name.trim() === '') {
      errorAt(ctx, at('name'), `derivedMetrics[${i}].name must be a non-empty string`);
      continue;
    }
    if (typeof value !== 'string') {
      // promptfoo also takes a function here, which only a JavaScript config can hold.
      errorAt(
        ctx,
        at('value'),
        `derivedMetrics[${i}] ("${name}"): \`value\` must be an expression such as "tp / (tp + fp)"`,
      );
      continue;
    }
    try {
      parseExpression(value);
    } catch (err) {
      if (!(err instanceof ExpressionSyntaxError)) throw err;
      const where = at('value');
      errorAt(
        ctx,
        where,
        `derivedMetrics[${i}] ("${name}"): invalid expression at character ${err.index + 1} of "${value}": ${err.message}`,
      );
      continue;
    }
    specs.push({ name, expression: value });
  }
  return specs.length > 0 ? specs : undefined;
}
