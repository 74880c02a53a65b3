// How a person recognises a case: by its description rendered with its vars (`capital of
// {{country}}` → `capital of France`), else by its most telling vars (`country=France`), never by a
// hash alone. The case's id stays beside the name, for reference. The vars a description does not
// show (`Row #2`, one text for many rows; `capital in {{lang}}` for many countries) stay beside it,
// so two cases never share a name. Every report uses this rule.
import type { JobResult } from '../core/types.js';
import { hasTemplateSyntax, renderString } from '../template/render.js';

/** What a report knows of a case: the fields every result and failure note carries. */
export interface CaseIdentity {
  caseId: string;
  caseRef?: string;
  description?: string;
  vars?: Record<string, unknown>;
}

/** A result's case as names read it (the case echo of the result). */
export function resultCase(r: JobResult): CaseIdentity {
  return { caseId: r.caseId, caseRef: r.case.ref, description: r.case.description, vars: r.case.vars };
}

/** A case's name for people and its id for reference. */
export interface CaseName {
  /** The description rendered with the vars, else `name=value` of its telling vars, else `case ID`. */
  title: string;
  /** The case's stable identity (ref, else its content hash), shortened when it is a long hash. */
  id: string;
  /**
   * The telling vars the title does not show (`Row #2`, a description written once for many rows):
   * what tells such cases apart.
   */
  detail?: string;
}

/** The longest var value shown in a name; longer ones are the case's material, not its name. */
const MAX_VALUE_CHARS = 60;
/** Vars shown at most in a name. */
const MAX_VARS = 3;

/** A var value as one line of text. */
function valueText(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The vars that tell cases apart best: short scalar values first (a country, a language, an id),
 * in the suite's order; a long text only when nothing shorter exists, cut to MAX_VALUE_CHARS.
 */
export function tellingVars(vars: Record<string, unknown> = {}): string {
  const entries = Object.entries(vars).filter(([, v]) => v !== undefined && v !== null && v !== '');
  if (entries.length === 0) return '';
  const short = entries.filter(([, v]) => typeof v !== 'object' && valueText(v).length <= MAX_VALUE_CHARS);
  const chosen = (short.length > 0 ? short : entries).slice(0, MAX_VARS);
  return chosen
    .map(([k, v]) => {
      const text = valueText(v);
      return `${k}=${text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text}`;
    })
    .join(' · ');
}

/** A description with its `{{var}}` holes filled from the case's vars (as written when it cannot be rendered). */
export function renderedDescription(description: string, vars: Record<string, unknown> = {}): string {
  if (!hasTemplateSyntax(description)) return description;
  try {
    // No environment: a report must never carry the machine's variables.
    return renderString(description, { ...vars }, {});
  } catch {
    return description;
  }
}

/** A case id for reference: a format's own id as it is, a content hash cut to 12 characters. */
export function shortId(id: string): string {
  return /^[0-9a-f]{16,}$/i.test(id) ? id.slice(0, 12) : id;
}

/** The name of a case (see the file comment). */
export function caseName(c: CaseIdentity): CaseName {
  const id = shortId(c.caseRef ?? c.caseId);
  const description = c.description?.trim() ? renderedDescription(c.description, c.vars).trim() : '';
  if (!description) return { title: tellingVars(c.vars) || `case ${id}`, id };
  // A description with holes shows some vars; the ones it does not show still tell cases apart
  // (`capital in {{lang}}` for several countries). One with none shows none of them.
  const shown = c.description && hasTemplateSyntax(c.description);
  const unshown = shown
    ? Object.fromEntries(Object.entries(c.vars ?? {}).filter(([, v]) => !description.includes(valueText(v))))
    : c.vars;
  const detail = tellingVars(unshown);
  return detail ? { title: description, id, detail } : { title: description, id };
}

/** The title with its detail, on one line: `Row #2 · country=Japan`. */
export function fullTitle(name: CaseName): string {
  return name.detail ? `${name.title} · ${name.detail}` : name.title;
}
