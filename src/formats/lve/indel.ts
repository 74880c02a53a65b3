// thefuzz's `fuzz.ratio`: 100 × (1 − Indel distance ÷ total length), rounded half to even as
// Python's round does; 100 when both strings are empty. Lengths count code points.
import { pyRound } from '../../core/python/text.js';

/** Length of the longest common subsequence of two code-point arrays. */
function lcsLength(a: number[], b: number[]): number {
  if (a.length < b.length) [a, b] = [b, a];
  let prev = new Uint32Array(b.length + 1);
  let cur = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    const ai = a[i - 1];
    for (let j = 1; j <= b.length; j++)
      cur[j] = ai === b[j - 1] ? prev[j - 1] + 1 : cur[j - 1] > prev[j] ? cur[j - 1] : prev[j];
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

/** thefuzz `fuzz.ratio(s1, s2)`: an integer from 0 to 100. */
export function fuzzRatio(s1: string, s2: string): number {
  const a = [...s1].map((c) => c.codePointAt(0)!);
  const b = [...s2].map((c) => c.codePointAt(0)!);
  const total = a.length + b.length;
  if (total === 0) return 100;
  const distance = total - 2 * lcsLength(a, b);
  return pyRound(100 * (1 - distance / total));
}
