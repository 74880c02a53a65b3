// Test sources promptfoo fetches over the network (spec §1.4): Hugging Face datasets, Google Sheets,
// SharePoint, Azure blobs, Langfuse traces, other URLs. assay loads a suite without touching the
// network (and without anyone's credentials), so each is refused with what to do instead; none is
// ever silently skipped, which would turn a suite into a green run that tested nothing.

interface RemoteSource {
  matches: (ref: string) => boolean;
  explain: (ref: string) => string;
}

const OFFLINE = 'assay reads suites offline and fetches nothing while loading one';

const SOURCES: RemoteSource[] = [
  {
    matches: (ref) => ref.startsWith('huggingface://'),
    explain: (ref) =>
      `tests from the Hugging Face dataset ${ref} need network access (and a token for a gated dataset); ${OFFLINE}. Export the split to CSV (each column becomes a var, as promptfoo maps dataset rows), e.g. \`datasets.load_dataset(...)["test"].to_csv("tests.csv")\`, and use \`tests: file://tests.csv\``,
  },
  {
    matches: (ref) => /^https?:\/\/docs\.google\.com\/spreadsheets\//i.test(ref),
    explain: (ref) =>
      `tests from the Google Sheet ${ref} need network access (and Google credentials for a private sheet); ${OFFLINE}. Download it with File → Download → Comma-separated values (.csv) and use \`tests: file://sheet.csv\``,
  },
  {
    matches: (ref) => /^https?:\/\/[^/]+\.sharepoint\.com\//i.test(ref),
    explain: (ref) =>
      `tests from the SharePoint file ${ref} need network access and Microsoft credentials; ${OFFLINE}. Download the sheet as CSV (or .xlsx) and point \`tests:\` at the local file`,
  },
  {
    matches: (ref) => ref.startsWith('az://'),
    explain: (ref) =>
      `tests from the Azure blob ${ref} need network access and Azure credentials; ${OFFLINE}. Download the blob (e.g. \`az storage blob download\`) and point \`tests:\` at the local file`,
  },
  {
    matches: (ref) => ref.startsWith('langfuse://'),
    explain: (ref) =>
      `tests from Langfuse (${ref}) need network access and Langfuse credentials; ${OFFLINE}. Export the traces to JSONL test cases and point \`tests:\` at the file`,
  },
  {
    matches: (ref) => /^[a-z][a-z0-9+.-]*:\/\//i.test(ref) && !ref.startsWith('file://'),
    explain: (ref) =>
      `tests from ${ref} would have to be fetched; ${OFFLINE}. Download the file and point \`tests:\` at the local copy`,
  },
];

/** Why a test reference cannot be loaded offline, or undefined for a local file. */
export function remoteSourceProblem(ref: string): string | undefined {
  return SOURCES.find((s) => s.matches(ref))?.explain(ref);
}
