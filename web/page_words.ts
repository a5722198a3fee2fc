/**
 * The CLI's words in the page's: messages and verdict lines name flags
 * (`--prior-aux`, `--samples`, …); the demo page shows them with the names
 * of its own controls.
 *
 * @module
 */

/** The CLI's flag names in the verdict's fixes, as the page's controls. */
const _WORDS: [RegExp, string][] = [
  [/--prior-intercept/g, "Intercept prior"],
  [/--prior-aux/g, "σ/φ prior"],
  [/--prior-scale/g, "prior s"],
  [/--prior\b/g, "Priors"],
  [/--family (\S+)/g, "family $1"],
  [/--success LEVEL chooses/g, "the field Level coded 1 chooses"],
  [/--success\b/g, "Level coded 1"],
  [/--response\b/g, "the response"],
  [/--sigma\b/g, "σ"],
  [/--nu\b/g, "ν"],
  [/--(offset|trials)\b/g, "the $1 column"],
  [/--formula\b/g, "the formula"],
  [/--standardize\b/g, "Standardize the columns"],
  [/--sampler (\S+)/g, "the $1 sampler"],
  [/--samples/g, "Draws"],
  [/--warmup/g, "Warmup"],
  [/--metric (\S+)/g, "metricAdaptation = $1"],
  [/--target-acceptance/g, "targetAcceptanceRate"],
  [/--step-size/g, "stepSize"],
];

/**
 * `line` with the CLI's flag names replaced by the page's controls.
 *
 * @param line A message or verdict line.
 * @returns The line in the page's words.
 */
export function pageWords(line: string): string {
  return _WORDS.reduce((s, [re, to]) => s.replace(re, to), line);
}
