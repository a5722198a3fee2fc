/**
 * Names users type: the closest known name to a mistyped one (Levenshtein
 * edit distance), and the check that an options object holds only known
 * keys — so that `numSample: 7` is a TypeError naming `numSamples` instead
 * of an option silently ignored.
 *
 * @module
 */

/**
 * The edit distance (insertions, deletions, substitutions) between two strings.
 *
 * @param a A string.
 * @param b A string.
 * @returns The Levenshtein distance.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { editDistance } from "./names.ts";
 * assert.equal(editDistance("numSample", "numSamples"), 1);
 * ```
 */
export function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0];
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j];
      dp[j] = Math.min(dp[j] + 1, dp[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length];
}

/**
 * The candidate closest to `name`, if close enough to be a typo: at most
 * max(1, ⌊|name|/3⌋) edits, case ignored (`numsamples` → `numSamples`).
 *
 * @param name What was typed.
 * @param candidates The known names.
 * @returns The closest candidate, or undefined if none is close.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { closestName } from "./names.ts";
 * assert.equal(closestName("stepsize", ["stepSize", "metric"]), "stepSize");
 * assert.equal(closestName("banana", ["stepSize", "metric"]), undefined);
 * ```
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined, bestD = Infinity;
  const lower = name.toLowerCase();
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestD) (bestD = d, best = c);
  }
  return bestD <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * Refuse keys of `options` that are not in `known`, naming the closest
 * known one (or listing them all when none is close). Keys whose value is
 * `undefined` are checked too: a misspelt key is a mistake whatever its value.
 *
 * @param options The options object the caller passed.
 * @param known Every key the callee reads.
 * @param where Who takes the options, for the message (`"sample()"`).
 * @param shown The names to list when none is close (default `known`).
 * @throws {TypeError} `sample(): unknown option "numSample"; did you mean "numSamples"?`
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkOptionNames } from "./names.ts";
 * checkOptionNames({ seed: 1 }, ["seed", "numSamples"], "sample()");
 * assert.throws(() => checkOptionNames({ numSample: 7 }, ["seed", "numSamples"], "sample()"),
 *   /unknown option "numSample"; did you mean "numSamples"\?/);
 * ```
 */
export function checkOptionNames(
  options: object,
  known: Iterable<string>,
  where: string,
  shown?: Iterable<string>,
): void {
  const set = known instanceof Set ? known as Set<string> : new Set(known);
  for (const key of Object.keys(options)) {
    if (set.has(key)) continue;
    const near = closestName(key, set);
    throw new TypeError(
      `${where}: unknown option ${JSON.stringify(key)}; ${
        near !== undefined
          ? `did you mean ${JSON.stringify(near)}?`
          : `known options: ${[...(shown ?? set)].sort().join(", ")}`
      }`,
    );
  }
}
