/** Near-match suggestions for a mistyped tool name. */

/** Levenshtein distance, bounded: returns `limit + 1` as soon as it is exceeded. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Up to `count` names from `candidates` that look like `wanted`: a shared substring
 * or a small edit distance, closest first.
 */
export function nearMatches(wanted: string, candidates: Iterable<string>, count = 3): string[] {
  const target = wanted.toLowerCase();
  const limit = Math.max(2, Math.floor(target.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of candidates) {
    const lower = name.toLowerCase();
    let score: number;
    if (lower.endsWith(`_${target}`) || lower.includes(target) || (target.length >= 4 && target.includes(lower))) {
      score = 0;
    } else {
      score = editDistance(target, lower, limit);
      if (score > limit) continue;
    }
    scored.push({ name, score });
  }
  scored.sort((x, y) => x.score - y.score || (x.name < y.name ? -1 : 1));
  return scored.slice(0, count).map((entry) => entry.name);
}
