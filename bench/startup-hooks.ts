/**
 * Module hooks for `bench/startup.ts`: every ES module Node loads is appended, as its URL, to the
 * file named in the registration data. Loaded through `startup-count.js`, never by assay itself.
 */
import { appendFileSync } from 'node:fs';

let file = '';

export function initialize(data: { file: string }): void {
  file = data.file;
}

export async function load(
  url: string,
  context: unknown,
  next: (url: string, context: unknown) => Promise<unknown>,
): Promise<unknown> {
  if (file) appendFileSync(file, `${url}\n`);
  return next(url, context);
}
