// A plain CSV splitter for the common shape of a test file: one record a line, fields unquoted or
// quoted within their line, every record as wide as the header. It gives exactly the records (and
// the line each ends on) csv-parse gives with promptfoo's options, several times faster; on
// anything else (a quote inside an unquoted field, a quoted field spanning lines, a carriage
// return, an empty line, a record of another width) it stops, and the reader hands the rest of the
// file to csv-parse, which then also decides strict or relaxed quotes as promptfoo does.

/** One record of a CSV file (the header first) and the line it ends on. */
export interface CsvRecord {
  record: string[];
  end: number;
}

const QUOTE = 34;
const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** Whether the splitter can read a file with this delimiter (one character, not a quote or line end). */
export function plainDelimiter(delimiter: string): boolean {
  return delimiter.length === 1 && delimiter !== '"' && delimiter !== '\n' && delimiter !== '\r';
}

/**
 * Splits CSV a chunk at a time. `push` and `end` add the records of the complete lines to `out`
 * and return false from the first line the splitter does not read the way csv-parse would; the
 * records before it are right, and `records` says how many there are.
 */
export class PlainCsvSplitter {
  /** Records given so far (the header included). */
  records = 0;
  private carry: Buffer | undefined;
  private line = 0;
  private width = -1;
  private started = false;
  private stopped = false;

  constructor(private readonly delimiter: string) {}

  push(chunk: Buffer, out: CsvRecord[]): boolean {
    if (this.stopped) return false;
    let bytes = chunk;
    if (!this.started) {
      // A byte-order mark is dropped (csv-parse's `bom`): wait for its three bytes.
      if (this.carry) {
        bytes = Buffer.concat([this.carry, bytes]);
        this.carry = undefined;
      }
      if (bytes.length < 3) {
        this.carry = Buffer.from(bytes);
        return true;
      }
      this.started = true;
      if (UTF8_BOM.every((b, i) => bytes[i] === b)) bytes = bytes.subarray(3);
    }
    const last = bytes.lastIndexOf(0x0a);
    if (last < 0) {
      this.carry = this.carry ? Buffer.concat([this.carry, bytes]) : Buffer.from(bytes);
      return true;
    }
    // A line feed is one byte in UTF-8 and never inside another character: the lines decode alone.
    const head = bytes.subarray(0, last + 1);
    const text = (this.carry ? Buffer.concat([this.carry, head]) : head).toString('utf8');
    this.carry = last + 1 < bytes.length ? Buffer.from(bytes.subarray(last + 1)) : undefined;
    return this.lines(text, out);
  }

  end(out: CsvRecord[]): boolean {
    if (this.stopped) return false;
    const rest = this.carry;
    this.carry = undefined;
    if (!rest || rest.length === 0) return true;
    return this.lines(`${rest.toString('utf8')}\n`, out);
  }

  /** Reads whole lines (`text` ends with a line feed). */
  private lines(text: string, out: CsvRecord[]): boolean {
    if (text.includes('\r')) return this.stop();
    let from = 0;
    while (from < text.length) {
      const nl = text.indexOf('\n', from);
      const fields = nl > from ? this.split(text, from, nl) : undefined;
      if (!fields) return this.stop();
      if (this.width < 0) this.width = fields.length;
      else if (fields.length !== this.width) return this.stop();
      this.line++;
      this.records++;
      out.push({ record: fields, end: this.line });
      from = nl + 1;
    }
    return true;
  }

  private stop(): false {
    this.stopped = true;
    return false;
  }

  /** The fields of the line text[start, end), or undefined where csv-parse might read it otherwise. */
  private split(text: string, start: number, end: number): string[] | undefined {
    const delimiter = this.delimiter;
    const fields: string[] = [];
    let i = start;
    for (;;) {
      if (text.charCodeAt(i) === QUOTE) {
        let value = '';
        let k = i + 1;
        for (;;) {
          const q = text.indexOf('"', k);
          if (q < 0 || q >= end) return undefined;
          value += text.slice(k, q);
          if (q + 1 < end && text.charCodeAt(q + 1) === QUOTE) {
            value += '"';
            k = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        fields.push(value);
        if (i === end) return fields;
        if (text[i] !== delimiter) return undefined;
        i++;
      } else {
        let e = text.indexOf(delimiter, i);
        if (e < 0 || e > end) e = end;
        const value = text.slice(i, e);
        if (value.includes('"')) return undefined;
        fields.push(value);
        if (e === end) return fields;
        i = e + 1;
      }
    }
  }
}

/** All records of CSV text, or undefined where the splitter cannot read all of it. */
export function plainCsvRecords(text: string, delimiter: string): CsvRecord[] | undefined {
  if (!plainDelimiter(delimiter)) return undefined;
  const splitter = new PlainCsvSplitter(delimiter);
  const out: CsvRecord[] = [];
  const bytes = Buffer.from(text, 'utf8');
  return splitter.push(bytes, out) && splitter.end(out) ? out : undefined;
}
