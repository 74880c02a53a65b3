// Registers the scorers that read the provider's response rather than its text: finish reason,
// latency, cost, perplexity (token log-probabilities) and tool calls.
import { registerScorer } from '../registry.js';
import type { Scorer } from '../types.js';
import { finishReasonScorer } from './finish-reason.js';
import { responseScorers as fromResponse } from './response.js';
import { toolsCallScorer } from './tools-call.js';

/** The response scorers, in registration order. */
export const responseScorers: readonly Scorer[] = [finishReasonScorer, ...fromResponse, toolsCallScorer];

for (const scorer of responseScorers) registerScorer(scorer);
