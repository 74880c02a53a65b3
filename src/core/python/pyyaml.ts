// PyYAML's implicit scalar resolution (yaml.resolver.Resolver) and safe constructors
// (yaml.constructor.SafeConstructor) for the `yaml` package's YAML 1.1 schema. PyYAML is narrower
// than YAML 1.1 as the `yaml` package reads it: a float needs a dot, and an exponent a sign
// (`1e3`, `1.5e3` are strings; `1.5e+3` is a float); `09` and `0o17` are strings; booleans are
// yes/no, true/false, on/off in three casings (not y/n). A date or timestamp becomes Python's
// `datetime.date`/`datetime.datetime`, held here as its `str()` text (`2024-01-01`,
// `2024-01-01 10:00:00+02:00`) since that is how every consumer (template rendering) shows it.
import type { CollectionTag, ScalarTag, Tags } from 'yaml';

type Tag = CollectionTag | ScalarTag;
type Opt = { intAsBigInt?: boolean };

const BOOL_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const BOOL_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;

/** yaml.resolver's float (re.X, whitespace removed). */
export const PYYAML_FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** yaml.resolver's int. */
export const PYYAML_INT =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
/** yaml.resolver's timestamp, with SafeConstructor.timestamp_regexp's groups. */
export const PYYAML_TIMESTAMP =
  /^(?:([0-9]{4})-([0-9]{2})-([0-9]{2})|([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)$/;

/** SafeConstructor.construct_yaml_int. */
function constructInt(text: string, onError: (m: string) => void, opt: Opt): number | bigint {
  let value = text.replace(/_/g, '');
  let sign = 1n;
  if (value[0] === '-') sign = -1n;
  if (value[0] === '-' || value[0] === '+') value = value.slice(1);
  let n: bigint;
  if (value === '0') n = 0n;
  else if (value.startsWith('0b')) n = parseBig(value.slice(2), 2, text, onError);
  else if (value.startsWith('0x')) n = parseBig(value.slice(2), 16, text, onError);
  else if (value[0] === '0') n = parseBig(value, 8, text, onError);
  else if (value.includes(':')) {
    n = 0n;
    for (const part of value.split(':')) n = n * 60n + BigInt(part);
  } else n = BigInt(value);
  n *= sign;
  return opt.intAsBigInt ? n : Number(n);
}

function parseBig(digits: string, radix: number, text: string, onError: (m: string) => void): bigint {
  if (digits === '') {
    onError(`invalid literal for int() with base ${radix}: '${text}'`);
    return 0n;
  }
  let n = 0n;
  for (const d of digits.toLowerCase()) n = n * BigInt(radix) + BigInt(parseInt(d, radix));
  return n;
}

/** SafeConstructor.construct_yaml_float. */
function constructFloat(text: string): number {
  let value = text.replace(/_/g, '').toLowerCase();
  let sign = 1;
  if (value[0] === '-') sign = -1;
  if (value[0] === '-' || value[0] === '+') value = value.slice(1);
  if (value === '.inf') return sign * Number.POSITIVE_INFINITY;
  if (value === '.nan') return Number.NaN;
  if (value.includes(':')) {
    let n = 0;
    for (const part of value.split(':')) n = n * 60 + Number.parseFloat(part);
    return sign * n;
  }
  return sign * Number.parseFloat(value);
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** SafeConstructor.construct_yaml_timestamp, as Python's str() of the date or datetime. */
function constructTimestamp(text: string, onError: (m: string) => void): string {
  const m = PYYAML_TIMESTAMP.exec(text);
  if (!m) return text;
  const dateOnly = m[1] !== undefined;
  const year = Number(dateOnly ? m[1] : m[4]);
  const month = Number(dateOnly ? m[2] : m[5]);
  const day = Number(dateOnly ? m[3] : m[6]);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (year < 1) onError(`year ${year} is out of range`);
  else if (month < 1 || month > 12) onError('month must be in 1..12');
  else if (day < 1 || day > (month === 2 && leap ? 29 : DAYS[month - 1]))
    onError('day is out of range for month');
  const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
  if (dateOnly) return date;
  const [hour, minute, second] = [m[7], m[8], m[9]].map(Number);
  if (hour > 23) onError('hour must be in 0..23');
  else if (minute > 59) onError('minute must be in 0..59');
  else if (second > 59) onError('second must be in 0..59');
  let out = `${date} ${pad(hour)}:${pad(minute)}:${pad(second)}`;
  const fraction = Number((m[10] ?? '').slice(0, 6).padEnd(6, '0'));
  if (fraction) out += `.${pad(fraction, 6)}`;
  if (m[12]) {
    let offset = Number(m[13]) * 60 + Number(m[14] ?? 0);
    if (offset >= 24 * 60)
      onError('offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24)');
    if (m[12] === '-') offset = -offset;
    const a = Math.abs(offset);
    out += `${offset < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
  } else if (m[11]) out += '+00:00';
  return out;
}

const IMPLICIT: Record<string, ScalarTag> = {
  'tag:yaml.org,2002:int': {
    tag: 'tag:yaml.org,2002:int',
    default: true,
    identify: (v) => typeof v === 'bigint' || Number.isInteger(v),
    test: PYYAML_INT,
    resolve: (s, onError, opt) => constructInt(s, onError, opt as Opt),
  },
  'tag:yaml.org,2002:float': {
    tag: 'tag:yaml.org,2002:float',
    default: true,
    identify: (v) => typeof v === 'number',
    test: PYYAML_FLOAT,
    resolve: (s) => constructFloat(s),
  },
  'tag:yaml.org,2002:timestamp': {
    tag: 'tag:yaml.org,2002:timestamp',
    default: true,
    identify: () => false,
    test: PYYAML_TIMESTAMP,
    resolve: (s, onError) => constructTimestamp(s, onError),
  },
};

/**
 * The `yaml` package's YAML 1.1 tags made to resolve plain scalars as PyYAML does: its own int,
 * float and timestamp tags (all formats, sexagesimal included) give way to PyYAML's.
 */
export function pyyamlTags(tags: Tags): Tags {
  const out: Tag[] = [];
  const added = new Set<string>();
  for (const t of tags) {
    if (typeof t !== 'object') continue;
    if (t.tag === 'tag:yaml.org,2002:bool' && 'test' in t && t.test) {
      out.push({ ...t, test: t.test.test('true') ? BOOL_TRUE : BOOL_FALSE });
      continue;
    }
    const mine = IMPLICIT[t.tag];
    if (mine) {
      if (!added.has(t.tag)) out.push(mine);
      added.add(t.tag);
      continue;
    }
    out.push(t);
  }
  for (const [tag, t] of Object.entries(IMPLICIT)) if (!added.has(tag)) out.push(t);
  return out;
}
