/**
 * The name in `names` that `typed` most likely misspells, for a "did you mean" hint: the same name in
 * another case, or one at most two edits away (insert, delete, replace, swap two neighbours) that is not
 * much shorter than `typed`. Undefined when none is that close.
 */
export function closestName(typed: string, names: Iterable<string>): string | undefined {
  const lower = typed.toLowerCase();
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of names) {
    if (name.toLowerCase() === lower) return name;
    // Two edits turn any short name into another: "port" is not a misspelt "sort".
    if (Math.min(name.length, typed.length) < 6) continue;
    const d = editDistance(lower, name.toLowerCase(), bestDistance);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment distance of `a` and `b`, or `limit` once it is certain to reach it. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, beforePrevious[j - 2]! + 1);
      row.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin >= limit) return limit;
    beforePrevious = previous;
    previous = row;
  }
  return Math.min(previous[b.length]!, limit);
}
