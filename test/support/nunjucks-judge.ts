// Nunjucks itself as the judge of assay's rendering: a template rendered by both, with the same
// vars (the environment promptfoo renders with: no autoescape, undefined as ''), must read the same,
// a template Nunjucks fails on failing in assay too.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { renderString } from '../../src/template/render.js';

const require = createRequire(import.meta.url);
const nunjucks = require('nunjucks') as typeof import('nunjucks');
const nj = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: false });

/** Asserts that renderString gives what Nunjucks gives for the template and vars ('(error)' for a failure). */
export function judgedByNunjucks(template: string, vars: Record<string, unknown>): void {
  let want: string;
  let got: string;
  try {
    want = nj.renderString(template, vars);
  } catch {
    want = '(error)';
  }
  try {
    got = renderString(template, vars, {});
  } catch {
    got = '(error)';
  }
  assert.equal(got, want, `template ${JSON.stringify(template)}`);
}

/** Whether Nunjucks compiles the template (without rendering it). */
export function nunjucksCompiles(template: string): boolean {
  try {
    new nunjucks.Template(template, nj, undefined, true);
    return true;
  } catch {
    return false;
  }
}
