// Excel test files (spec §1.4): `file://t.xlsx`, `file://t.xlsx#Sheet2` (by name) or
// `file://t.xlsx#2` (1-based index). The sheet's rows go through the CSV row rules, with cell values
// as the sheet types them (numbers stay numbers, booleans stay booleans, dates are Excel serial
// numbers), exactly what promptfoo's SheetJS reader gives. The reader is loaded only when a
// workbook is referenced: most suites never pay for it.
import { errorAt, type LoadContext } from './context.js';
import type { CsvRow } from './csv.js';
import { displayPath, UnreadableFile, type Where } from './source.js';

type SheetJs = typeof import('@e965/xlsx');

let sheetJs: Promise<SheetJs | undefined> | undefined;

/** The SheetJS module, or undefined when the optional dependency is not installed. */
function loadSheetJs(): Promise<SheetJs | undefined> {
  sheetJs ??= import('@e965/xlsx').then(
    (m) => m,
    () => undefined,
  );
  return sheetJs;
}

/** Splits `t.xlsx#Sheet` into the path and the sheet selector (at the first `#`, as promptfoo). */
export function splitSheet(path: string): { path: string; sheet?: string } {
  const hash = path.indexOf('#');
  return hash === -1 ? { path } : { path: path.slice(0, hash), sheet: path.slice(hash + 1) };
}

/** Whether a test reference names an Excel workbook (optionally with a sheet selector). */
export function isWorkbookRef(path: string): boolean {
  return /\.xlsx?$/i.test(splitSheet(path).path);
}

/** The sheet a selector picks: a 1-based index when it parses as an integer, else a name. */
function pickSheet(names: string[], selector: string | undefined): { name: string } | { problem: string } {
  if (names.length === 0) return { problem: 'the workbook has no sheets' };
  if (selector === undefined || selector === '') return { name: names[0] };
  const available = names.map((n) => `"${n}"`).join(', ');
  // promptfoo's parseInt rule: "2nd" is index 2, "Sheet2" is a name.
  const index = Number.parseInt(selector, 10);
  if (Number.isNaN(index)) {
    if (names.includes(selector)) return { name: selector };
    return { problem: `sheet "${selector}" not found; the sheets are ${available}` };
  }
  if (index < 1 || index > names.length) {
    return {
      problem: `sheet index ${index} is out of range: the workbook has ${names.length} sheet${names.length === 1 ? '' : 's'} (1-${names.length}): ${available}`,
    };
  }
  return { name: names[index - 1] };
}

function blank(value: unknown): boolean {
  return value === '' || value === undefined || value === null || String(value).trim() === '';
}

/**
 * Reads one sheet of a workbook as CSV-style rows, each positioned at its sheet row (the file
 * is shown as `t.xlsx#Sheet`, the line is the spreadsheet's row number). Reports and returns
 * undefined when the workbook cannot be used.
 */
export async function readWorkbookRows(
  ctx: LoadContext,
  ref: string,
  where: Where,
): Promise<CsvRow[] | undefined> {
  const { path, sheet } = splitSheet(ref.startsWith('file://') ? ref.slice('file://'.length) : ref);
  const abs = ctx.files.resolve(path);
  const shown = ctx.files.relative(abs);
  let bytes: Buffer;
  try {
    bytes = ctx.files.readBytes(abs);
  } catch (err) {
    if (!(err instanceof UnreadableFile)) throw err;
    errorAt(ctx, where, `test file ${shown}: ${err.message}`);
    return undefined;
  }
  const xlsx = await loadSheetJs();
  if (!xlsx) {
    errorAt(
      ctx,
      where,
      `reading ${shown} needs the optional package @e965/xlsx, which is not installed: run \`npm install @e965/xlsx\`, or save the sheet as CSV`,
    );
    return undefined;
  }
  let workbook: ReturnType<SheetJs['read']>;
  try {
    workbook = xlsx.read(bytes, { type: 'buffer' });
  } catch (err) {
    errorAt(ctx, where, `test file ${shown} is not a readable Excel workbook: ${(err as Error).message}`);
    return undefined;
  }
  const picked = pickSheet(workbook.SheetNames, sheet);
  if ('problem' in picked) {
    errorAt(ctx, where, `test file ${shown}: ${picked.problem}`);
    return undefined;
  }
  const file = `${displayPath(abs)}#${picked.name}`;
  // defval '' gives every row every column, as promptfoo reads sheets.
  const rows = xlsx.utils.sheet_to_json<Record<string, unknown>>(workbook.Sheets[picked.name], {
    defval: '',
  });
  if (rows.length === 0) {
    errorAt(ctx, where, `sheet "${picked.name}" of ${shown} is empty or contains no data rows`);
    return undefined;
  }
  const headers = Object.keys(rows[0]);
  if (headers.length === 0) {
    errorAt(ctx, where, `sheet "${picked.name}" of ${shown} has no column headers`);
    return undefined;
  }
  if (!rows.some((row) => headers.some((h) => !blank(row[h])))) {
    errorAt(ctx, where, `sheet "${picked.name}" of ${shown} contains only empty cells below its headers`);
    return undefined;
  }
  // A row whose cells are all empty (formatted, or cleared) is not a test: promptfoo drops it.
  return rows
    .filter((row) => headers.some((h) => !blank(row[h])))
    .map((row) => {
      // SheetJS records each row's 0-based sheet row (hidden from Object.keys).
      const rowNum = (row as { __rowNum__?: number }).__rowNum__;
      return {
        entries: Object.entries(row).map(([k, v]) => [k.trim(), v] as [string, unknown]),
        where: { file, line: rowNum === undefined ? undefined : rowNum + 1 },
        header: { file, line: 1 },
      };
    });
}
