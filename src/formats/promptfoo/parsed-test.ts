// A promptfoo test after its fields are checked (test-case.ts), before the defaultTest merge; and
// the raw tests that give it directly (a plain CSV row, csv.ts). Types only, so that csv.ts needs
// no import of test-case.ts (which imports the test file readers that import csv.ts).
import type { AssertionSpec, ProviderSpec } from '../../core/types.js';
import type { LoadContext } from './context.js';
import type { Locate, RawTest } from './source.js';

/** A test after field checks, before the defaultTest merge. */
export interface ParsedTest {
  description?: string;
  vars?: Record<string, unknown>;
  asserts?: AssertionSpec[];
  /** promptfoo `options` that become prompt prefix/suffix or provider params. */
  options: Record<string, unknown>;
  prefix?: string;
  suffix?: string;
  disableVarExpansion?: boolean;
  disableDefaultAsserts?: boolean;
  /** `options.disableConversationVar`: the test is not shown `_conversation` (its turn still counts). */
  disableConversationVar?: boolean;
  /** `options.storeOutputAs`: the var the test's output is kept under for the tests after it. */
  storeOutputAs?: string;
  /** `assertScoringFunction`: replaces the weighted average of the test's verdicts. */
  scoreScript?: string;
  /** The test's own grader (`options.provider`). */
  grader?: ProviderSpec;
  /** Grader settings applied to assertions that do not set their own. */
  gradingOptions: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  threshold?: number;
  providers?: string[];
  prompts?: string[];
  providerOutput?: unknown;
  /** `options.transform` and its legacy name `options.postprocess` (the first set one applies). */
  transform?: string;
  postprocess?: string;
  /** The test's own provider (answers instead of the provider under test). */
  provider?: ProviderSpec;
  at: Locate;
}

/**
 * A test that gives its ParsedTest without being read field by field (a plain CSV row, csv.ts):
 * `parsed` returns what parseTest gives for `value`; `name` is promptfoo's name for the test.
 */
export interface PreparsedTest extends RawTest {
  parsed(ctx: LoadContext, name: string): ParsedTest;
}
