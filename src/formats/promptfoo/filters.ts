// `nunjucksFilters`: custom Nunjucks filters, a map of filter name → a JavaScript file whose
// default export (or `module.exports`) is the filter function. promptfoo joins the path to the
// config's folder and globs it (the last match wins); assay does the same, and also accepts the
// `file://` form the docs show (promptfoo 0.123.1 cannot load that form: it joins the prefix into
// the path and finds no file). The filters are added before any template is checked, so prompts,
// vars and assertion values may use them.
import { loadScriptFunction } from '../../runtime/js-runtime.js';
import { addTemplateFilter } from '../../template/render.js';
import { brief, errorAt, isRecord, type LoadContext } from './context.js';
import { globFiles, isGlobPattern } from './glob.js';
import { UnreadableFile, type YamlFile } from './source.js';

const JS_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/i;

/** Loads the config's `nunjucksFilters` and adds them to the template environment. */
export async function loadNunjucksFilters(ctx: LoadContext, value: unknown, yaml: YamlFile): Promise<void> {
  if (value === undefined || value === null) return;
  if (!isRecord(value)) {
    errorAt(
      ctx,
      yaml.locate(['nunjucksFilters']),
      '`nunjucksFilters` must map filter names to JavaScript files',
    );
    return;
  }
  for (const [name, ref] of Object.entries(value)) {
    const where = yaml.locate(['nunjucksFilters', name]);
    if (typeof ref !== 'string' || ref === '') {
      errorAt(ctx, where, `filter "${name}" must name a JavaScript file, got ${brief(ref)}`);
      continue;
    }
    const path = ref.startsWith('file://') ? ref.slice('file://'.length) : ref;
    const matches = isGlobPattern(path) ? globFiles(path, ctx.files.basePath) : [ctx.files.resolve(path)];
    const abs = matches[matches.length - 1];
    if (abs === undefined) {
      errorAt(ctx, where, `filter "${name}": no file matches ${path}`);
      continue;
    }
    if (!JS_FILE.test(abs)) {
      errorAt(
        ctx,
        where,
        `filter "${name}": ${ctx.files.relative(abs)} is not a JavaScript or TypeScript file`,
      );
      continue;
    }
    try {
      ctx.files.read(abs);
    } catch (err) {
      if (!(err instanceof UnreadableFile)) throw err;
      errorAt(ctx, where, `filter "${name}": ${ctx.files.relative(abs)}: ${err.message}`);
      continue;
    }
    try {
      const filter = await loadScriptFunction(abs, undefined, ctx.files.relative(abs));
      addTemplateFilter(name, filter);
    } catch (err) {
      errorAt(ctx, where, `filter "${name}": ${(err as Error).message}`);
    }
  }
}
