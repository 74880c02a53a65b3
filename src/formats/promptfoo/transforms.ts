// Output transforms as promptfoo configs write them (`transform`, `options.transform`,
// `options.postprocess`, a provider's `transform`), checked at load time.
import { transformFile, transformProblem } from '../../runtime/transform.js';
import { errorAt, type LoadContext } from './context.js';
import { UnreadableFile, type Where } from './source.js';

/**
 * Checks an output transform (`transform`, `options.transform`, a provider's): JavaScript that
 * compiles, or a `file://` JavaScript/Python file that exists (it joins the suite's files).
 */
export function transformAt(
  ctx: LoadContext,
  value: unknown,
  where: Where,
  name: string,
): string | undefined {
  const problem = transformProblem(value);
  if (problem) {
    errorAt(ctx, where, `${name}: ${problem}`);
    return undefined;
  }
  const code = value as string;
  const file = transformFile(code);
  if (file !== undefined) {
    const abs = ctx.files.resolve(file);
    try {
      ctx.files.read(abs);
    } catch (err) {
      if (!(err instanceof UnreadableFile)) throw err;
      errorAt(ctx, where, `${name}: transform file ${ctx.files.relative(abs)}: ${err.message}`);
      return undefined;
    }
  }
  return code;
}
