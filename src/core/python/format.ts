// Python's `str.format_map` and `str.format`, for formats whose tool fills templates with Python
// (LVE fills prompts and checker arguments with them): `{name}` inserts `str(value)` in Python's
// spelling (core/python/str.ts), `{{` and `}}` are literal braces, a missing name is a KeyError and a
// lone brace a ValueError.
import type { PyValue } from './json-loads.js';
import { pyAscii, pyRepr, pyStr, pyStrRepr } from './str.js';

/** A Python exception raised while formatting: its type name and message, as Python prints them. */
export class PyFormatError extends Error {
  constructor(
    readonly pyType: 'KeyError' | 'ValueError' | 'IndexError' | 'Unsupported',
    message: string,
  ) {
    super(message);
    this.name = 'PyFormatError';
  }
  /** `KeyError: 'name'`, as Python reports it. */
  describe(): string {
    return this.pyType === 'Unsupported' ? this.message : `${this.pyType}: ${this.message}`;
  }
}

/** The names a template refers to (`{name}` fields), in order; throws PyFormatError on bad syntax. */
export function pyFormatFields(template: string): string[] {
  const names: string[] = [];
  scan(template, 'format_map', (name) => {
    names.push(name);
    return '';
  });
  return names;
}

/**
 * Python's `template.format_map(values)` (or, with `method: 'format'`, `template.format(**values)`,
 * which differs only in its error for a positional field). Throws PyFormatError: KeyError for a name with no value,
 * ValueError for a lone brace. Conversions (`!r`, `!s`, `!a`) are applied; format specs and
 * attribute or index access, legal Python that LVE data never uses, are refused as Unsupported.
 */
export function pyFormatMap(
  template: string,
  values: ReadonlyMap<string, PyValue>,
  method: 'format_map' | 'format' = 'format_map',
): string {
  return scan(template, method, (name, conversion) => {
    if (!values.has(name)) throw new PyFormatError('KeyError', pyStrRepr(name));
    const v = values.get(name) as PyValue;
    return conversion === 'r' ? pyRepr(v) : conversion === 'a' ? pyAscii(v) : pyStr(v);
  });
}

type Field = (name: string, conversion: string | undefined) => string;

function scan(template: string, method: 'format_map' | 'format', field: Field): string {
  let out = '';
  // `str.format(**kw)` numbers `{}` fields 0, 1, …; none has a positional value.
  const auto = { next: 0 };
  let i = 0;
  while (i < template.length) {
    const c = template[i];
    if (c === '}') {
      if (template[i + 1] !== '}')
        throw new PyFormatError('ValueError', "Single '}' encountered in format string");
      out += '}';
      i += 2;
      continue;
    }
    if (c !== '{') {
      out += c;
      i++;
      continue;
    }
    if (template[i + 1] === '{') {
      out += '{';
      i += 2;
      continue;
    }
    // A replacement field runs to its matching `}` (a format spec may nest fields).
    let depth = 1;
    let j = i + 1;
    while (j < template.length && depth > 0) {
      if (template[j] === '{') depth++;
      else if (template[j] === '}') depth--;
      if (depth > 0) j++;
    }
    if (j >= template.length) {
      throw new PyFormatError(
        'ValueError',
        i === template.length - 1
          ? "Single '{' encountered in format string"
          : depth > 1
            ? "unmatched '{' in format spec"
            : "expected '}' before end of string",
      );
    }
    const body = template.slice(i + 1, j);
    out += replacement(body, method, auto, field);
    i = j + 1;
  }
  return out;
}

function replacement(
  body: string,
  method: 'format_map' | 'format',
  auto: { next: number },
  field: Field,
): string {
  let rest = body;
  let spec: string | undefined;
  let conversion: string | undefined;
  const colon = rest.indexOf(':');
  const bang = rest.indexOf('!');
  if (bang >= 0 && (colon < 0 || bang < colon)) {
    conversion = rest.slice(bang + 1, colon < 0 ? undefined : colon);
    if (colon >= 0) spec = rest.slice(colon + 1);
    rest = rest.slice(0, bang);
    if (conversion.length !== 1)
      throw new PyFormatError('ValueError', "expected ':' after conversion specifier");
    if (!'rsa'.includes(conversion))
      throw new PyFormatError('ValueError', `Unknown conversion specifier ${conversion}`);
  } else if (colon >= 0) {
    spec = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  if (rest === '' || /^\d+$/.test(rest)) {
    // format_map refuses positional fields outright; format(**kw) has no positional values.
    if (method === 'format_map')
      throw new PyFormatError('ValueError', 'Format string contains positional fields');
    const index = rest === '' ? auto.next++ : Number(rest);
    throw new PyFormatError(
      'IndexError',
      `Replacement index ${index} out of range for positional args tuple`,
    );
  }
  if (/[.[]/.test(rest))
    throw new PyFormatError(
      'Unsupported',
      `{${body}}: attribute or index access in a template is not supported by assay`,
    );
  if (spec !== undefined && spec !== '')
    throw new PyFormatError(
      'Unsupported',
      `{${body}}: format specs in a template are not supported by assay`,
    );
  return field(rest, conversion);
}
