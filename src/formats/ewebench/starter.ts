// `assay init --format ewebench`: an ÈwéBench tests/ folder of one category that runs offline at
// once with the echo provider (ÈwéBench names no model: it is given with --provider).
import type { Starter } from '../types.js';

const TESTS = [
  {
    id: 'tr_starter_01',
    prompt: "Translate into English: 'Akpe na wò.' (thank you)",
    eval_method: 'keywords',
    expected_keywords: ['thank'],
    description: 'Ewe to English: thanks',
  },
  {
    id: 'tr_starter_02',
    prompt: 'Traduis en Ewe : « L’eau est bonne. » (tsi nyo)',
    eval_method: 'keywords',
    expected_keywords: ['tsi', 'nyo'],
    description: 'French to Ewe: a short sentence',
  },
];

export const starter: Starter = {
  files: { 'tests/translation.json': `${JSON.stringify(TESTS, null, 2)}\n` },
  evalArgs: ['--provider', 'echo'],
};
