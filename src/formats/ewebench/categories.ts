// ÈwéBench's fixed facts (joel710/EweBench, ewe_bench.py v1.0.0): the ten categories in the
// tool's order with their ÈwéScore weights, and the request defaults.

/** One ÈwéBench category: its file is `tests/<key>.json`. */
export interface EweCategory {
  key: string;
  /** The tool's French display name. */
  name: string;
  /** Weight in the ÈwéScore (the ten add up to 1). */
  weight: number;
  description: string;
}

/** The ten categories, in the order the tool runs and reports them. */
export const CATEGORIES: readonly EweCategory[] = [
  {
    key: 'linguistic_comprehension',
    name: 'Compréhension Linguistique',
    weight: 0.15,
    description: "Grammaire, vocabulaire, tons, morphologie de l'Ewe",
  },
  {
    key: 'text_generation',
    name: 'Génération de Texte',
    weight: 0.15,
    description: 'Fluence, cohérence, naturel du texte généré en Ewe',
  },
  {
    key: 'reasoning',
    name: 'Raisonnement Logique',
    weight: 0.12,
    description: 'Capacité de raisonnement exprimée en Ewe',
  },
  {
    key: 'translation',
    name: 'Traduction Bidirectionnelle',
    weight: 0.12,
    description: 'Qualité de traduction FR↔Ewe et EN↔Ewe',
  },
  {
    key: 'cultural_knowledge',
    name: 'Connaissance Culturelle',
    weight: 0.1,
    description: 'Proverbes, traditions, histoire Ewe et togolaise',
  },
  {
    key: 'instruction_following',
    name: "Suivi d'Instructions",
    weight: 0.1,
    description: "Respect précis d'instructions complexes",
  },
  {
    key: 'multi_turn',
    name: 'Conversation Multi-Tour',
    weight: 0.08,
    description: 'Cohérence et contexte sur plusieurs échanges',
  },
  {
    key: 'agentic',
    name: 'Capacités Agentiques',
    weight: 0.08,
    description: "Function calling, planification, chaînage d'outils",
  },
  {
    key: 'style_adaptation',
    name: 'Adaptation Stylistique',
    weight: 0.05,
    description: 'Registres formel/informel, technique/simple',
  },
  {
    key: 'robustness',
    name: 'Robustesse',
    weight: 0.05,
    description: 'Cohérence face aux ambiguïtés, adversarial inputs',
  },
];

/** The category of a key, or undefined for a name the tool does not know. */
export function categoryByKey(key: string): EweCategory | undefined {
  return CATEGORIES.find((c) => c.key === key);
}

export const BENCHMARK_NAME = 'ÈwéBench';
export const BENCHMARK_VERSION = '1.0.0';
/** Sent as the system message when a test has neither `system` nor `messages`. */
export const DEFAULT_SYSTEM_PROMPT = 'Tu es Yawo, un assistant IA qui répond en Ewe.';
export const DEFAULT_TEMPERATURE = 0.3;
export const MAX_TOKENS = 1024;
/** A test passes when its score, rounded to 3 decimals, reaches this. */
export const PASS_MARK = 0.7;
/** How the tool records a failed model call; compat mode scores this text as the tool does. */
export const ERROR_TEXT = '[ERROR] {error}';
