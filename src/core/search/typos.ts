/**
 * Typo tolerance: a query word that no tool uses is read as the known word it most likely
 * misspells (`lsit` → list, `stauts` → status, `comit` → commit). Typing errors are mostly
 * one letter wrong, missing, extra, or two swapped, so the distance counts a swap of
 * neighbours as one edit (optimal string alignment), and a word of under 8 letters may be
 * one edit off, a longer one two.
 */

/** Most edits a correction may take for a word of `length` letters; short words are not corrected. */
export function editsAllowed(length: number): number {
  if (length < 4) return 0;
  return length < 8 ? 1 : 2;
}

/**
 * The optimal-string-alignment distance of `a` and `b`, or `limit + 1` as soon as it is
 * certain to exceed `limit`.
 */
export function typoDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** Whether `a` and `b` have the same letters, as a word and the same word with two letters swapped do. */
function sameLetters(a: string, b: string): boolean {
  return a.length === b.length && [...a].sort().join('') === [...b].sort().join('');
}

/**
 * The known word `word` most likely misspells: the closest within `editsAllowed`; among
 * equally close ones, one with the same letters (a swap of neighbours, the commonest typo:
 * `stauts` is `status` before `starts`), then the most common (`frequency`), then the first
 * in order. `undefined` when none is close enough.
 */
export function correction(word: string, known: Iterable<string>, frequency: (word: string) => number): string | undefined {
  const limit = editsAllowed(word.length);
  if (limit === 0) return undefined;
  let best: string | undefined;
  let bestDistance = limit + 1;
  let bestFrequency = 0;
  let bestSwapped = false;
  for (const candidate of known) {
    if (Math.abs(candidate.length - word.length) > limit || candidate === word) continue;
    const distance = typoDistance(word, candidate, Math.min(limit, bestDistance));
    if (distance > limit || distance > bestDistance) continue;
    const swapped = sameLetters(word, candidate);
    const count = frequency(candidate);
    if (distance < bestDistance || (swapped && !bestSwapped) || (swapped === bestSwapped && count > bestFrequency)) {
      best = candidate;
      bestDistance = distance;
      bestFrequency = count;
      bestSwapped = swapped;
    }
  }
  return best;
}
