// `prompts:` (spec §1.2): literal strings, `{id, label, raw, config}` objects, the legacy
// `{path: label}` map, and prompt files (.txt, .json, .jsonl, .md, .j2, .yaml), with promptfoo's
// rule for when a string is a file path and its labels.
import { extname, resolve } from 'node:path';
import { shortHash } from '../../core/hash.js';
import type { PromptProgram, PromptTemplate } from '../../core/types.js';
import { yamlLib } from '../../core/yaml-lib.js';
import { templateVariableRoots } from '../../template/references.js';
import { checkPromptTemplate, openTag } from '../../template/render.js';
import { brief, errorAt, isRecord, isRefObject, type LoadContext, notYet, warnAt } from './context.js';
import { parseCsvSync } from './csv-parse-lib.js';
import { envFlag } from './env-flags.js';
import { globFiles, isGlobPattern } from './glob.js';
import { type Locate, UnreadableFile, type Where, within } from './source.js';

interface PromptEntry {
  raw: string;
  id?: string;
  label?: string;
  config?: Record<string, unknown>;
  /** The function a `file://x.js:fn` / `x.py:fn` names. */
  fn?: string;
}

interface LoadedPrompt {
  raw: string;
  id?: string;
  label: string;
  config?: Record<string, unknown>;
  program?: PromptProgram;
}

const FILE_EXTENSIONS = [
  '.cjs',
  '.cts',
  '.js',
  '.json',
  '.jsonl',
  '.mjs',
  '.mts',
  '.py',
  '.ts',
  '.txt',
  '.yml',
  '.yaml',
  '.md',
  '.j2',
  '.csv',
];
const SCRIPT_EXTENSIONS = /\.(?:[cm]?[jt]sx?|py)$/;
const EXECUTABLE_EXTENSIONS = new Set(['.sh', '.bash', '.exe', '.bat', '.cmd', '.ps1', '.rb', '.pl']);

/** promptfoo's `maybeFilePath`: whether a prompt string is treated as a file reference. */
export function maybeFilePath(text: string): boolean {
  if (['\n', 'portkey://', 'langfuse://', 'helicone://'].some((s) => text.includes(s))) return false;
  const tokens = text.split(':');
  return (
    text.startsWith('file://') ||
    FILE_EXTENSIONS.some((ext) => tokens.at(-1)?.endsWith(ext) || tokens.at(-2)?.endsWith(ext)) ||
    text.charAt(text.length - 3) === '.' ||
    text.charAt(text.length - 4) === '.' ||
    text.includes('*') ||
    text.includes('/') ||
    text.includes('\\')
  );
}

function normalize(ctx: LoadContext, value: unknown, at: Locate): { entry: PromptEntry; at: Locate }[] {
  if (typeof value === 'string') {
    if (value === '') errorAt(ctx, at(), `Invalid input prompt: ""`);
    return value === '' ? [] : [{ entry: { raw: value }, at }];
  }
  if (Array.isArray(value)) {
    if (value.length === 0) errorAt(ctx, at(), 'You must provide at least 1 prompt');
    const out: { entry: PromptEntry; at: Locate }[] = [];
    value.forEach((item, i) => {
      const itemAt = within(at, [i]);
      if (typeof item === 'string') out.push({ entry: { raw: item }, at: itemAt });
      else if (isRefObject(item)) {
        // Refused where the config was parsed.
      } else if (isRecord(item)) {
        const entry = objectEntry(ctx, item, itemAt);
        if (entry) out.push({ entry, at: itemAt });
      } else errorAt(ctx, itemAt(), `Invalid input prompt: ${brief(item)}`);
    });
    return out;
  }
  if (isRecord(value) && Object.keys(value).length > 0) {
    // Legacy map form `{path: label}`.
    return Object.entries(value).map(([raw, label]) => ({
      entry: { raw, label: typeof label === 'string' ? label : String(label) },
      at: within(at, [raw]),
    }));
  }
  errorAt(ctx, at(), `Invalid input prompt: ${brief(value)}`);
  return [];
}

function objectEntry(ctx: LoadContext, item: Record<string, unknown>, at: Locate): PromptEntry | undefined {
  if (item.function !== undefined) {
    errorAt(ctx, at(), notYet('a prompt function'));
    return undefined;
  }
  const raw = item.raw ?? item.id;
  if (typeof raw !== 'string' || raw === '') {
    errorAt(ctx, at(), `prompt.raw must be a string, but got ${brief(raw)}`);
    return undefined;
  }
  const entry: PromptEntry = { raw };
  if (item.id !== undefined) {
    if (typeof item.id === 'string') entry.id = item.id;
    else errorAt(ctx, at(['id']), 'prompt `id` must be a string');
  }
  if (item.label !== undefined) {
    if (typeof item.label === 'string') entry.label = item.label;
    else errorAt(ctx, at(['label']), 'prompt `label` must be a string');
  }
  if (item.config !== undefined && item.config !== null) {
    if (isRecord(item.config)) entry.config = item.config;
    else errorAt(ctx, at(['config']), 'prompt `config` must be a mapping');
  }
  return entry;
}

function literal(entry: PromptEntry): LoadedPrompt[] {
  return [{ raw: entry.raw, id: entry.id, label: entry.label ?? entry.raw, config: entry.config }];
}

function readPromptFile(ctx: LoadContext, abs: string, where: Where): string | undefined {
  try {
    return ctx.files.read(abs);
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    errorAt(ctx, where, `prompt file ${ctx.files.relative(abs)}: ${err.message}`);
    return undefined;
  }
}

function containsFileRef(value: unknown): boolean {
  if (typeof value === 'string') return value.startsWith('file://');
  if (Array.isArray(value)) return value.some(containsFileRef);
  if (isRecord(value)) return Object.values(value).some(containsFileRef);
  return false;
}

function fromFile(
  ctx: LoadContext,
  entry: PromptEntry,
  abs: string,
  where: Where,
): LoadedPrompt[] | undefined {
  const ext = extname(abs).toLowerCase();
  const shown = ctx.files.relative(abs);
  const { label, config } = entry;
  if (SCRIPT_EXTENSIONS.test(ext) || EXECUTABLE_EXTENSIONS.has(ext)) {
    // A program that makes the prompt for each job (PromptTemplate.program); its source is `raw`.
    const text = readPromptFile(ctx, abs, where);
    if (text === undefined) return undefined;
    const fn = entry.fn;
    let program: PromptProgram;
    if (ext === '.py')
      program = fn ? { kind: 'python', path: abs, fn } : { kind: 'python-script', path: abs };
    else if (SCRIPT_EXTENSIONS.test(ext)) program = { kind: 'javascript', path: abs, ...(fn ? { fn } : {}) };
    else program = { kind: 'executable', path: abs, cwd: ctx.files.basePath };
    // Labelled with the path as promptfoo writes it (relative, `./` dropped), never this machine's absolute path.
    const named = fn ? `${shown}:${fn}` : shown;
    const shownLabel = label ?? (ext === '.py' && !fn ? `${shown}: ${text}` : named);
    return [{ raw: text, label: shownLabel, config, program }];
  }
  if (ext === '.csv') {
    const text = readPromptFile(ctx, abs, where);
    return text === undefined ? undefined : csvPrompts(ctx, text, entry);
  }
  if (!['.txt', '.json', '.jsonl', '.md', '.j2', '.yaml', '.yml'].includes(ext)) return [];
  const text = readPromptFile(ctx, abs, where);
  if (text === undefined) return undefined;
  switch (ext) {
    case '.txt': {
      const out: LoadedPrompt[] = [];
      let buffer: string[] = [];
      const flush = () => {
        const raw = buffer.join('\n').trim();
        if (raw) out.push({ raw, label: label ? `${label}: ${shown}: ${raw}` : `${shown}: ${raw}`, config });
        buffer = [];
      };
      for (const line of text.split(/\r?\n/)) {
        if (line.trim() === (ctx.env.PROMPTFOO_PROMPT_SEPARATOR || '---')) flush();
        else buffer.push(line);
      }
      flush();
      return out;
    }
    case '.json': {
      let raw = text;
      try {
        const parsed: unknown = JSON.parse(text);
        if (containsFileRef(parsed)) {
          errorAt(ctx, where, notYet(`a file:// reference inside a JSON prompt file (${shown})`));
          return undefined;
        }
        raw = JSON.stringify(parsed);
      } catch {
        // promptfoo keeps a file that is not valid JSON as it is.
      }
      return [{ raw, label: label || `${shown}: ${raw}`, config }];
    }
    case '.jsonl': {
      const lines = text.split(/\r?\n/).filter((line) => line.length > 0);
      const many = lines.length > 1;
      return lines.map((raw) => ({
        raw,
        label: many ? (label ? `${label}: ${raw}` : `${shown}: ${raw}`) : label || shown,
        config,
      }));
    }
    case '.yaml':
    case '.yml': {
      let parsed: unknown;
      try {
        parsed = yamlLib().parse(text, { merge: true });
      } catch (err) {
        errorAt(ctx, where, `prompt file ${shown}: invalid YAML: ${(err as Error).message.split('\n')[0]}`);
        return undefined;
      }
      const raw = JSON.stringify(parsed) ?? '';
      return [{ raw, label: label || `${shown}: ${raw.slice(0, 80)}`, config }];
    }
    default:
      // .md and .j2: the whole file is one prompt.
      return [{ raw: text, label: label || `${shown}: ${text.slice(0, 50)}...`, config }];
  }
}

function processEntry(ctx: LoadContext, entry: PromptEntry, at: Locate): LoadedPrompt[] | undefined {
  const raw = entry.raw;
  const where = at();
  if (raw.startsWith('exec:')) {
    const [command, ...args] = raw.slice('exec:'.length).trim().split(/\s+/);
    // A path (`./make.sh`, `bin/make`) is the suite's file; a bare name (`python3`) is a command
    // on the PATH. Either runs in the suite's folder.
    let path = command;
    if (command.includes('/') || command.includes('\\')) {
      path = ctx.files.resolve(command);
      try {
        ctx.files.read(path);
      } catch (err) {
        if (!(err instanceof UnreadableFile)) throw err;
        errorAt(ctx, where, `executable prompt ${ctx.files.relative(path)}: ${err.message}`);
        return undefined;
      }
    }
    const program: PromptProgram = {
      kind: 'executable',
      path,
      cwd: ctx.files.basePath,
      ...(args.length > 0 ? { args } : {}),
    };
    return [
      {
        raw,
        id: entry.id,
        label: entry.label ?? raw.slice('exec:'.length).trim(),
        config: entry.config,
        program,
      },
    ];
  }
  if (/^(?:portkey|langfuse|helicone):\/\//.test(raw)) {
    // These live in a prompt-management service: fetching them needs the network and an account.
    errorAt(
      ctx,
      where,
      `a prompt from ${raw.split(':')[0]} is fetched from that service's cloud with your credentials, which assay does not do (it loads suites offline); export the prompt to a file and use file://`,
    );
    return undefined;
  }
  if (!maybeFilePath(raw)) return literal(entry);

  let path = raw.startsWith('file://') ? raw.slice('file://'.length) : raw;
  const fn = /^(.*\.(?:[cm]?[jt]sx?|py|go|rb)):(\w+)$/.exec(path);
  if (fn) {
    path = fn[1];
    entry = { ...entry, fn: fn[2] };
  }
  // An id that only stood in for `raw` (`{id: file://p.txt}`) is not the prompts' id.
  const ownId = entry.id !== undefined && entry.id !== entry.raw ? entry.id : undefined;
  const withIds = (batch: LoadedPrompt[], id: string | undefined) =>
    batch.map((p, i) => ({ ...p, id: id && (batch.length > 1 ? `${id}:${i + 1}` : id) }));
  if (isGlobPattern(path)) {
    const out: LoadedPrompt[] = [];
    for (const match of globFiles(path, ctx.files.basePath)) {
      const rel = ctx.files.relative(match);
      const loaded = fromFile(
        ctx,
        { ...entry, label: entry.label && `${entry.label}: ${rel}` },
        match,
        where,
      );
      if (loaded === undefined) return undefined;
      out.push(...withIds(loaded, ownId && `${ownId}:${rel}`));
    }
    // Nothing at that path: promptfoo then reads the string as prompt text ("What is 2/3?").
    return out.length > 0 ? out : literal(entry);
  }
  const loaded = fromFile(ctx, entry, resolve(ctx.files.basePath, path), where);
  return loaded && withIds(loaded, ownId);
}

/**
 * Reads `prompts` into prompt templates. Returns undefined when `prompts` is absent (the caller
 * then applies promptfoo's `{{prompt}}` default).
 */
export function loadPrompts(ctx: LoadContext, value: unknown, at: Locate): PromptTemplate[] | undefined {
  if (value === undefined || value === null) return undefined;
  const loaded: LoadedPrompt[] = [];
  for (const { entry, at: entryAt } of normalize(ctx, value, at)) {
    const batch = processEntry(ctx, entry, entryAt);
    if (batch === undefined) continue;
    for (const prompt of batch) {
      // Compiled now (once per distinct text), so a broken tag is exit 2, not an error per job.
      const problem = checkPromptTemplate(prompt.raw);
      if (problem) errorAt(ctx, entryAt(), `prompt ${brief(prompt.label, 80)}: ${problem}`);
      // promptfoo sends a tag left open as literal text; almost always a typo, so say so.
      const open = problem ? undefined : openTag(prompt.raw);
      if (open)
        warnAt(
          ctx,
          entryAt(),
          `prompt ${brief(prompt.label, 80)}: ${brief(open.trim(), 40)} is never closed, so the prompt is sent with it as literal text (as promptfoo does); close it if it was meant as a variable`,
        );
    }
    if (batch.length === 0) {
      errorAt(
        ctx,
        entryAt(),
        `There are no prompts in ${JSON.stringify(entry.raw)} (promptfoo reads a string with "/", "\\", "*" or a file extension as a file path; write literal text with a newline, e.g. as a YAML block, to use it as a prompt)`,
      );
      continue;
    }
    loaded.push(...batch);
  }
  return assignPromptIds(ctx, loaded, at);
}

function assignPromptIds(ctx: LoadContext, loaded: LoadedPrompt[], at: Locate): PromptTemplate[] {
  const used = new Map<string, number>();
  const explicit = new Set<string>();
  const out: PromptTemplate[] = [];
  for (const p of loaded) {
    let id = p.id;
    if (id !== undefined) {
      if (explicit.has(id)) errorAt(ctx, at(), `two prompts share the id "${id}"`);
      explicit.add(id);
    } else {
      const base = shortHash(p.raw);
      const n = (used.get(base) ?? 0) + 1;
      used.set(base, n);
      id = n === 1 ? base : `${base}-${n}`;
    }
    const template: PromptTemplate = { id, label: p.label, raw: p.raw };
    if (p.config) template.config = p.config;
    if (p.program) template.program = p.program;
    out.push(template);
  }
  return out;
}

/** promptfoo's default when `prompts` is missing: the single prompt `{{prompt}}`. */
export function defaultPrompt(): PromptTemplate {
  return { id: shortHash('{{prompt}}'), label: '{{prompt}}', raw: '{{prompt}}' };
}

/** The var promptfoo gives a prompt the earlier turns of its conversation under. */
const CONVERSATION_VAR = '_conversation';

/**
 * Marks the prompts that read `_conversation` (promptfoo's chat threads) and says whether any
 * does; `PROMPTFOO_DISABLE_CONVERSATION_VAR` turns the var off, as in promptfoo.
 */
export function markConversationPrompts(ctx: LoadContext, prompts: PromptTemplate[]): boolean {
  if (envFlag(ctx.env, 'PROMPTFOO_DISABLE_CONVERSATION_VAR')) return false;
  let any = false;
  for (const prompt of prompts) {
    if (!prompt.raw.includes(CONVERSATION_VAR)) continue;
    if (!templateVariableRoots(prompt.raw).includes(CONVERSATION_VAR)) continue;
    prompt.threadVar = CONVERSATION_VAR;
    any = true;
  }
  return any;
}

/**
 * The prompts of a CSV file, as promptfoo reads them: a `prompt` column (rows without one are
 * skipped) and an optional `label` column; a file without the delimiter, or that does not parse,
 * is one prompt per non-empty line (a first line `prompt` is a header). Rows without a label are
 * `Prompt N - text`, or `<label>: text` under the entry's label.
 */
function csvPrompts(ctx: LoadContext, text: string, entry: PromptEntry): LoadedPrompt[] {
  const delimiter = ctx.env.PROMPTFOO_CSV_DELIMITER || ',';
  let rows: { raw: string; label?: string }[] | undefined;
  if (text.includes(delimiter)) {
    try {
      const records = parseCsvSync(text, {
        columns: true,
        bom: true,
        delimiter,
        relax_quotes: !envFlag(ctx.env, 'PROMPTFOO_CSV_STRICT'),
        skip_empty_lines: true,
        trim: true,
      }) as Record<string, string>[];
      rows = records.filter((r) => r.prompt).map((r) => ({ raw: r.prompt, label: r.label || undefined }));
    } catch {
      rows = undefined;
    }
  }
  if (rows === undefined) {
    const lines = text.split(/\r?\n/).filter((line) => line.trim());
    const start = lines[0]?.toLowerCase().trim() === 'prompt' ? 1 : 0;
    rows = lines.slice(start).map((raw) => ({ raw }));
  }
  const many = rows.length > 1;
  const used = new Set(rows.flatMap((r) => (r.label ? [r.label] : [])));
  return rows.map((row, index) => {
    let label = row.label;
    if (!label) {
      const first = entry.label
        ? many
          ? `${entry.label}: ${row.raw}`
          : entry.label
        : `Prompt ${index + 1} - ${row.raw}`;
      label = first;
      for (let n = 1; used.has(label); n++) label = `${first} (row ${index + 1}${n > 1 ? `.${n}` : ''})`;
      used.add(label);
    }
    return { raw: row.raw, label, config: entry.config };
  });
}
