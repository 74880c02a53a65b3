// assay's public library API.
export { type CaseRecord, readCaseRecords } from './analysis/cases.js';
export { type CompareOptions, type Comparison, compareRuns, compareViews } from './analysis/compare.js';
export {
  benjaminiHochberg,
  holm,
  mcnemarExact,
  minimumDetectableEffect,
  pairedBootstrap,
  pairedProportionInterval,
  passAtK,
  passHatK,
  signFlipTest,
  tangoInterval,
} from './analysis/paired.js';
export { computeScorecard, ScorecardBuilder, scorecardOfRun } from './analysis/scorecard.js';
export { wilson } from './analysis/stats.js';
// The structured answer: building one in a provider, and the output rules that read it.
export {
  type DerivedOutput,
  normalizeFinishReason,
  type OutputRule,
  type OutputRuleContext,
  outputRuleNames,
  registerOutputRule,
  textAnswer,
  toolCallBlock,
  withFinishReason,
} from './core/answer.js';
export { DiagnosticBag, formatDiagnostic, InputError, RunAbortedError } from './core/errors.js';
export type * from './core/scorecard.js';
export { maskUrlCredentials, Secrets, type SecretsOptions } from './core/secrets.js';
export type * from './core/types.js';
export { type Check, is, type View, ViewError, view } from './core/view.js';
export {
  type FailingKind,
  type FailingSelection,
  type FailuresReader,
  filterSuite,
} from './engine/filter.js';
export { type Generation, generate } from './engine/generate.js';
export { judge } from './engine/judge.js';
export { planJobs } from './engine/plan.js';
export { runSuite } from './engine/run.js';
export { aggregate, scoreCase } from './engine/score.js';
export {
  type CaseDefinition,
  defineSuite,
  type SuiteDefinition,
} from './evaluate/define-suite.js';
export { selectProviders } from './evaluate/select-providers.js';
export { type RunSettings, resolveRunSettings } from './evaluate/settings.js';
export { type EvaluateOptions, type EvaluateResult, evaluate } from './evaluate.js';
// The extension points: a suite format, an assertion type (scorer), a provider kind, an output format.
export type * from './formats/detect.js';
export { loadSuite, loadSuiteObject, registerFormat } from './formats/detect.js';
// Output formats: register one (a plugin), write any registered one from a run directory.
export {
  type ChosenFormat,
  type FileOutputFormat,
  type FileSink,
  type FolderOutputFormat,
  type FolderSink,
  type OutputFolder,
  type OutputFormat,
  type OutputOptions,
  type OutputRun,
  outputFormatNames,
  outputFormats,
  type ReporterIo,
  type RunShape,
  registerOutputFormat,
  resolveOutputFormat,
  type TreeOutputFormat,
  type TreeSink,
  writeReport,
} from './outputs.js';
export {
  createProvider,
  isKnownProviderId,
  type ProviderEntry,
  registerProvider,
} from './providers/registry.js';
export type {
  AttemptFailure,
  Provider,
  ProviderContext,
  ProviderFactory,
  ProviderRequest,
  ProviderResponse,
  RetryPolicy,
} from './providers/types.js';
// The renderers the CLI uses, for a program that wants the same reports.
export { type ConsoleStyle, renderSummary } from './report/console.js';
export { writeHtmlReport } from './report/html.js';
export { writeJunit } from './report/junit.js';
export { renderMarkdown } from './report/markdown.js';
export { listBaselines, resolveRun, saveBaseline } from './runlog/baselines.js';
export { readManifest, readResults } from './runlog/reader.js';
export type { RunManifest } from './runlog/types.js';
export { RUNLOG_VERSION } from './runlog/version.js';
export { getScorer, registerScorer, scorerTypes } from './scorers/index.js';
export type { ScoreInput, ScoreResult, Scorer } from './scorers/types.js';
