// What a `file://` var value becomes (promptfoo §2.3), given the file's bytes: text trimmed, YAML
// as a JSON string, an image as a data URL, a PDF as its extracted text. Reading the file (and remembering that it was read)
// is the caller's job, so a suite's content hash covers every file its prompts will see.
import { extname } from 'node:path';
import { yamlLib } from '../core/yaml-lib.js';

/** The outcome of turning a var file into a var value. */
export type VarFileValue =
  | { value: string }
  /** A kind of file promptfoo reads in a way assay does not yet (a script, media). */
  | { unsupported: string }
  /** The file is of a supported kind but its content is broken (invalid YAML). */
  | { invalid: string };

const IMAGE_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.bmp': 'image/bmp',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.ico': 'image/x-icon',
  '.avif': 'image/avif',
  '.heic': 'image/heic',
};
const MEDIA = new Set([
  '.mp4',
  '.webm',
  '.ogg',
  '.mov',
  '.avi',
  '.wmv',
  '.mkv',
  '.m4v',
  '.mp3',
  '.wav',
  '.flac',
  '.aac',
  '.m4a',
  '.opus',
  '.oga',
  '.wma',
  '.aiff',
]);
const SCRIPTS = new Set(['.js', '.ts', '.mjs', '.cjs', '.py']);

/** The image type the bytes announce, for the formats whose signature is unambiguous. */
function sniffImage(bytes: Buffer): string | undefined {
  const starts = (signature: number[], at = 0): boolean => signature.every((b, i) => bytes[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) {
    return 'image/gif';
  }
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

type Unpdf = typeof import('unpdf');
let unpdf: Promise<Unpdf | undefined> | undefined;

/** The PDF text extractor, loaded on first use; undefined when the optional package is absent. */
function loadUnpdf(): Promise<Unpdf | undefined> {
  unpdf ??= import('unpdf').then(
    (m) => m,
    () => undefined,
  );
  return unpdf;
}

/**
 * The text of a PDF as promptfoo's pdf-parse 2 gives it: every page followed by a blank line and
 * its marker (`-- 1 of 3 --`), the whole trimmed. The text within a page comes from another
 * extractor (unpdf), so line breaks inside a page may differ.
 */
async function pdfText(bytes: Buffer): Promise<VarFileValue> {
  const lib = await loadUnpdf();
  if (!lib) {
    return {
      invalid:
        'reading a PDF var needs the optional package unpdf, which is not installed: run `npm install unpdf`, or give the text as a .txt file',
    };
  }
  try {
    // Verbosity 0: pdf.js would otherwise print its warnings to stdout.
    const doc = await lib.getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    try {
      const { text } = await lib.extractText(doc, { mergePages: false });
      const pages = text.map((page, i) => `${page}\n\n-- ${i + 1} of ${text.length} --\n\n`);
      return { value: pages.join('').trim() };
    } finally {
      await doc.destroy();
    }
  } catch (err) {
    return { invalid: `not a readable PDF: ${(err as Error).message}` };
  }
}

/** How var files are read. */
export interface VarFileOptions {
  /** Give a PDF's raw bytes as text instead of its extracted text (PROMPTFOO_DISABLE_PDF_AS_TEXT). */
  pdfRaw?: boolean;
  /** Give images, video and audio as the file's text, not base64 (PROMPTFOO_DISABLE_MULTIMEDIA_AS_BASE64). */
  mediaRaw?: boolean;
}

/**
 * The var value promptfoo (newer versions) gives a `file://` var: images become a
 * `data:<mime>;base64,…` URL (the extension's type, corrected by the file's signature, since a
 * `.jpg` that is really a PNG is common), YAML is parsed and JSON-stringified, a PDF becomes its
 * extracted text, and anything else is the file's text, trimmed (so JSON stays a string). Scripts
 * and media are not read.
 */
export async function varFileValue(
  path: string,
  bytes: Buffer,
  opts: VarFileOptions = {},
): Promise<VarFileValue> {
  const ext = extname(path).toLowerCase();
  if (SCRIPTS.has(ext)) return { unsupported: 'a var computed by a script' };
  if (ext === '.pdf' && !opts.pdfRaw) return pdfText(bytes);
  if (MEDIA.has(ext) && !opts.mediaRaw) return { unsupported: 'a video or audio var' };
  const imageType = IMAGE_TYPES[ext];
  if (imageType !== undefined && !opts.mediaRaw) {
    return { value: `data:${sniffImage(bytes) ?? imageType};base64,${bytes.toString('base64')}` };
  }
  const text = bytes.toString('utf8');
  if (ext === '.yaml' || ext === '.yml') {
    try {
      return { value: JSON.stringify(yamlLib().parse(text, { merge: true, logLevel: 'error' })) ?? '' };
    } catch (err) {
      return { invalid: `invalid YAML: ${(err as Error).message.split('\n')[0]}` };
    }
  }
  return { value: text.trim() };
}
