// Registers the scorers that ask a grader model (judgements, embeddings). Importing this module is enough.
import { registerScorer } from '../registry.js';
import { embeddingSimilarityScorer } from './embedding-similarity.js';
import { judgeYesNoScorer } from './judge-yes-no.js';

for (const scorer of [judgeYesNoScorer, embeddingSimilarityScorer]) registerScorer(scorer);
