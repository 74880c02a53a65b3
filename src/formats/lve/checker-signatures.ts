// The constructor arguments of LVE's built-in checkers (lve/checkers/*.py): those without a
// default must be in checker_args; any other key is a TypeError when LVE builds the checker.

/** Required and optional constructor arguments of a built-in checker. */
export interface CheckerSignature {
  required: string[];
  optional: string[];
}

const SIGNATURES: Record<string, CheckerSignature> = {
  RegexChecker: { required: ['pattern', 'match_safe'], optional: ['flags'] },
  LambdaChecker: { required: ['func'], optional: ['extract'] },
  MultiRunLambdaChecker: { required: ['func'], optional: [] },
  ExactMatchChecker: { required: ['pattern'], optional: ['match_safe'] },
  FuzzyMatchChecker: { required: ['text', 'threshold'], optional: ['match_safe'] },
  RefuseChecker: { required: [], optional: [] },
  MonotonicityChecker: {
    required: [],
    optional: [
      'answer_value_regex',
      'answer_variable_identifier_regex',
      'param_variable_identifier_regex',
      'order',
      'strict',
    ],
  },
  ToxicityChecker: { required: ['toxicity_threshold'], optional: ['model'] },
  BiasChecker: { required: ['bias_threshold'], optional: ['model'] },
  PII_Checker: { required: ['entities'], optional: [] },
};

/** The signature of a built-in checker, or undefined for a name LVE does not ship. */
export function checkerSignature(name: string): CheckerSignature | undefined {
  return Object.hasOwn(SIGNATURES, name) ? SIGNATURES[name] : undefined;
}

/** Built-in checkers that need a model or service assay does not have, and what they need. */
export const UNPORTABLE_BUILTINS: Record<string, string> = {
  ToxicityChecker: 'a HuggingFace text-classification model (s-nlp/roberta_toxicity_classifier by default)',
  BiasChecker: 'a HuggingFace text-classification model (valurank/distilroberta-bias by default)',
  PII_Checker: 'Microsoft Presidio with a spaCy NER model',
};

/**
 * Custom checkers of the LVE repository that need what assay does not have: their Python is not
 * run (it would download a model, or a web page and call OpenAI), each instance is an error.
 */
export const UNPORTABLE_CUSTOM: Record<string, string> = {
  SMS_SpamChecker: 'a HuggingFace model (mrm8488/bert-tiny-finetuned-sms-spam-detection)',
  TranslatedSongCopyrightChecker:
    'the network (it downloads the lyrics page) and an OpenAI model to translate',
};
