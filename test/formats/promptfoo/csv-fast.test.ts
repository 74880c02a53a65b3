// The plain CSV splitter must give exactly csv-parse's records and line numbers (promptfoo's
// options) for every file it reads, and stop where it cannot; checked on edge cases and on many
// generated files, whole and in small chunks.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import {
  type CsvRecord,
  PlainCsvSplitter,
  plainCsvRecords,
} from '../../../src/formats/promptfoo/csv-fast.js';
import { fixture } from '../../support/paths.js';

/** csv-parse's records (strict quotes) with the line each ends on, or the error it throws. */
function reference(text: string, delimiter = ','): CsvRecord[] | Error {
  const out: CsvRecord[] = [];
  try {
    parse(text, {
      bom: true,
      delimiter,
      on_record: (record: string[], info: { lines: number }) => {
        out.push({ record, end: info.lines });
        return null;
      },
    });
    return out;
  } catch (err) {
    return err as Error;
  }
}

/** The splitter fed `size`-byte chunks: its records, and whether it read the whole text. */
function chunked(text: string, size: number, delimiter = ','): { records: CsvRecord[]; whole: boolean } {
  const splitter = new PlainCsvSplitter(delimiter);
  const records: CsvRecord[] = [];
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) {
    if (!splitter.push(bytes.subarray(i, i + size), records)) return { records, whole: false };
  }
  return { records, whole: splitter.end(records) };
}

function check(text: string, delimiter = ','): boolean {
  const expected = reference(text, delimiter);
  const whole = plainCsvRecords(text, delimiter);
  for (const size of [1, 3, 7, 1 << 20]) {
    const got = chunked(text, size, delimiter);
    assert.equal(got.whole, whole !== undefined, `chunks of ${size}: ${JSON.stringify(text)}`);
    if (expected instanceof Error) {
      assert.equal(got.whole, false, `read what csv-parse refuses: ${JSON.stringify(text)}`);
      continue;
    }
    // What the splitter gave is csv-parse's, record for record; all of it when it read the whole text.
    assert.deepEqual(got.records, expected.slice(0, got.records.length), JSON.stringify(text));
    if (got.whole) assert.equal(got.records.length, expected.length, JSON.stringify(text));
    assert.equal(got.records.length, splitterCount(text, size, delimiter));
  }
  if (whole && !(expected instanceof Error)) assert.deepEqual(whole, expected);
  return whole !== undefined;
}

function splitterCount(text: string, size: number, delimiter: string): number {
  const splitter = new PlainCsvSplitter(delimiter);
  const records: CsvRecord[] = [];
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size)
    if (!splitter.push(bytes.subarray(i, i + size), records)) break;
  splitter.end(records);
  assert.equal(splitter.records, records.length);
  return records.length;
}

describe('plain CSV splitter', () => {
  it('reads plain files as csv-parse does, quotes within a line included', () => {
    const plain = [
      'a,b\n1,2\n',
      'a,b\n1,2',
      '\ufeffa,b\n1,2\n',
      'a,b,\n1,2,\n',
      'a,b\n"x, y","say ""hi"""\n',
      'a,b\n"",""\n',
      'a\n1\n2\n',
      'topic,__expected\nsubject é ✓,contains:é\n',
      '',
      '\ufeff',
      'a,b\n,\n',
      'a,b\n"q",\n',
    ];
    for (const text of plain) assert.equal(check(text), true, JSON.stringify(text));
  });

  it('stops where csv-parse might read otherwise, after the same records', () => {
    const odd = [
      'a,b\n1,2\n\n',
      'a,b\n\n1,2\n',
      'a,b\r\n1,2\r\n',
      'a,b\n"two\nlines",2\n',
      'a,b\nx"y,2\n',
      'a,b\n"x"y,2\n',
      'a,b\n"x" ,2\n',
      'a,b\n1,2,3\n',
      'a,b\n1\n',
      'a,b\n"open,2\n',
      'a,b\n1,2\n3,"4\n',
    ];
    for (const text of odd) assert.equal(check(text), false, JSON.stringify(text));
  });

  it('another delimiter', () => {
    assert.equal(check('a;b\n"1;2";3\n', ';'), true);
    assert.equal(check('a\tb\n1,2\t3\n', '\t'), true);
  });

  it('reads every CSV of the fixtures as csv-parse does (or leaves it to csv-parse)', () => {
    const root = fixture();
    const csvs = readdirSync(root, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.csv'));
    assert.ok(csvs.length >= 5);
    let plain = 0;
    for (const f of csvs) if (check(readFileSync(join(root, f), 'utf8'))) plain++;
    assert.ok(plain > 0);
  });

  it('agrees with csv-parse on generated files', () => {
    // A fixed-seed generator: bounded, the same files on every run.
    let seed = 12345;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = ['a', 'bc', ',', ',', '"', '""', '\n', '\n', ' ', 'é', '\r\n', '\ufeff', 'x"y'];
    let read = 0;
    for (let n = 0; n < 3000; n++) {
      let text = '';
      const len = 1 + next(30);
      for (let i = 0; i < len; i++) text += pieces[next(pieces.length)];
      if (check(text)) read++;
    }
    // Plain files come up often enough that the comparison means something.
    assert.ok(read > 100, `only ${read} generated files were plain`);
  });
});
