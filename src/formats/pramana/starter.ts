// `assay init --format pramana`: a pramana suite folder (manifest.toml and one tier) that runs
// offline at once with the echo provider.
import type { Starter } from '../types.js';

const MANIFEST = `# A starter pramana suite, written by \`assay init --format pramana\`.
# A pramana suite names no model: give one with --provider (echo answers with the prompt itself).
[suite]
version = "v0.1"
description = "A starter suite"

[tiers.starter]
file = "starter.jsonl"
test_count = 3
description = "Three tests the echo provider passes"
`;

const TESTS = [
  {
    id: 'starter-001',
    category: 'instruction_following',
    input: 'Repeat the word SUCCESS.',
    ideal: ['SUCCESS'],
    assertion: { type: 'contains', case_sensitive: true },
    metadata: { difficulty: 'easy', tokens_est: 10, tags: ['starter'] },
  },
  {
    id: 'starter-002',
    category: 'factual',
    input: 'Which city is the capital of France? (Paris or Lyon)',
    ideal: ['paris'],
    assertion: { type: 'contains_any', case_sensitive: false },
    metadata: { difficulty: 'easy', tokens_est: 15, tags: ['starter'] },
  },
  {
    id: 'starter-003',
    category: 'reasoning',
    input: 'Say yes or no: is 2 + 2 equal to 4?',
    ideal: ['yes'],
    assertion: { type: 'contains', case_sensitive: false },
    metadata: { difficulty: 'easy', tokens_est: 15, tags: ['starter'] },
  },
];

export const starter: Starter = {
  files: {
    'manifest.toml': MANIFEST,
    'starter.jsonl': `${TESTS.map((t) => JSON.stringify(t)).join('\n')}\n`,
  },
  evalArgs: ['--provider', 'echo'],
};
