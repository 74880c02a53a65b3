import { isIPv6 } from 'node:net';
import type { Format } from 'ajv';

// promptfoo validates schemas with ajv-formats. That package is not a dependency of assay, so the
// same format names are defined here: without them ajv's strict mode rejects any schema that uses
// `format`. Checks follow ajv-formats' rules where they are short; uri-family checks are looser.

const DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const TIME = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i;
const DATE_TIME_SEPARATOR = /t|\s/i;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function date(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS[month]);
}

function time(text: string, zoneRequired: boolean): boolean {
  const m = TIME.exec(text);
  if (!m) return false;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = Number(m[3]);
  if (zoneRequired && !m[4]) return false;
  const zoneHour = m[6] === undefined ? 0 : Number(m[6]);
  const zoneMinute = m[7] === undefined ? 0 : Number(m[7]);
  if (zoneHour > 23 || zoneMinute > 59) return false;
  if (hour <= 23 && minute <= 59 && second < 60) return true;
  // A leap second is only valid at 23:59:60 UTC.
  const sign = m[5] === '-' ? -1 : 1;
  const utcMinute = minute - zoneMinute * sign;
  const utcHour = hour - zoneHour * sign - (utcMinute < 0 ? 1 : 0);
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61;
}

function dateTime(text: string, zoneRequired: boolean): boolean {
  const parts = text.split(DATE_TIME_SEPARATOR);
  return parts.length === 2 && date(parts[0]) && time(parts[1], zoneRequired);
}

function regex(text: string): boolean {
  if (/(?:^|[^\\])(?:\\\\)*\\Z/.test(text)) return false;
  try {
    new RegExp(text, 'u');
    return true;
  } catch {
    return false;
  }
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The format names ajv-formats defines, for the ajv instance the JSON scorers use. */
export const schemaFormats: Record<string, Format> = {
  date,
  time: (t: string) => time(t, true),
  'date-time': (t: string) => dateTime(t, true),
  'iso-time': (t: string) => time(t, false),
  'iso-date-time': (t: string) => dateTime(t, false),
  duration: /^P(?!$)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$/,
  uri: /^[a-z][a-z0-9+.-]*:[^\s]*$/i,
  'uri-reference': /^[^\s]*$/,
  'uri-template': /^[^\s]*$/,
  url: /^(?:https?|ftp):\/\/[^\s/$.?#][^\s]*$/i,
  email:
    /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i,
  hostname:
    /^(?=.{1,253}\.?$)[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$/i,
  ipv4: /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
  ipv6: (t: string) => isIPv6(t),
  regex,
  uuid: /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i,
  'json-pointer': /^(?:\/(?:[^~/]|~0|~1)*)*$/,
  'json-pointer-uri-fragment': /^#(?:\/(?:[a-z0-9_\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*$/i,
  'relative-json-pointer': /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$/,
  byte: /^(?:[a-z0-9+/]{4})*(?:[a-z0-9+/]{2}==|[a-z0-9+/]{3}=)?$/i,
  int32: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX },
  int64: { type: 'number', validate: (n: number) => Number.isInteger(n) },
  float: { type: 'number', validate: () => true },
  double: { type: 'number', validate: () => true },
  password: true,
  binary: true,
};
