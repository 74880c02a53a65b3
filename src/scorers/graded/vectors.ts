// Comparing embedding vectors: the one place the length check and the cosine arithmetic live.
import { GraderError } from '../types.js';

/** Throws GraderError unless two embeddings have the same length. */
export function sameLength(a: number[], b: number[]): void {
  if (a.length !== b.length)
    throw new GraderError(`embeddings differ in length (${a.length} vs ${b.length})`);
}

/**
 * Cosine similarity of two embeddings. A zero vector has no direction: promptfoo's `similar` scores
 * it 0 (`zero: 'score-0'`); a format that must not guess treats it as an error (`zero: 'error'`).
 */
export function cosine(a: number[], b: number[], zero: 'score-0' | 'error' = 'score-0'): number {
  sameLength(a, b);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  if (na !== 0 && nb !== 0) return dot / Math.sqrt(na * nb);
  if (zero === 'error')
    throw new GraderError('an embedding is the zero vector; no similarity can be computed');
  return 0;
}
