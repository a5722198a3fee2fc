/**
 * Covariate names that cannot collide with a draws file's own columns
 * ({@link RESERVED_COLUMN_NAMES}, {@link safeColumnNames}).
 *
 * @module
 */

/**
 * Column names that mean something else in a draws file (`chain`,
 * `iteration`, the sign and the scale parameters tallmc writes, the columns
 * of posterior's and CmdStan's formats): a covariate so named is renamed
 * (see {@link safeColumnNames}).
 */
export const RESERVED_COLUMN_NAMES: readonly string[] = [
  "chain",
  "iteration",
  "sign",
  "log_sigma",
  "log_phi",
  "log_nu_minus_1",
  ".chain",
  ".iteration",
  ".draw",
  "lp__",
];

/**
 * Covariate names that cannot collide with a draws file's own columns: a
 * reserved name ({@link RESERVED_COLUMN_NAMES}) gets the suffix `_x` (more
 * if that is taken too), an empty name becomes `V<field>` (as without a
 * header), each with a note.
 *
 * @param names The covariates' names (the intercept excluded).
 * @param fields The 1-based field of each name, for the notes.
 * @param taken Other names in the file, which a new name must not repeat.
 * @returns The names to use and one note per renamed column.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { safeColumnNames } from "./column_names.ts";
 * const r = safeColumnNames(["a", "sign", ""], [2, 3, 4], ["y"]);
 * assert.deepEqual(r.names, ["a", "sign_x", "V4"]);
 * assert.equal(r.notes.length, 2);
 * ```
 */
export function safeColumnNames(
  names: readonly string[],
  fields: readonly number[],
  taken: readonly string[] = [],
): { names: string[]; notes: string[] } {
  const used = new Set([...taken, ...names]);
  const out: string[] = [], notes: string[] = [];
  names.forEach((name, k) => {
    if (name !== "" && !RESERVED_COLUMN_NAMES.includes(name)) {
      out.push(name);
      return;
    }
    let next = name === "" ? `V${fields[k]}` : `${name}_x`;
    while (used.has(next) || RESERVED_COLUMN_NAMES.includes(next)) next += "_x";
    used.add(next);
    out.push(next);
    notes.push(
      name === ""
        ? `the header's field ${fields[k]} is empty: the column is named ${JSON.stringify(next)}`
        : `column ${JSON.stringify(name)} (field ${fields[k]}) is renamed ${
          JSON.stringify(next)
        }: ${JSON.stringify(name)} is a column of the draws file`,
    );
  });
  return { names: out, notes };
}

/**
 * A field of CSV text as written: quoted (with its quotes doubled) when it
 * holds a quote, a comma or a line break, else as it is (RFC 4180).
 *
 * @param text The field.
 * @returns The field as it goes into a line.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { csvField } from "./column_names.ts";
 * assert.equal(csvField("x1"), "x1");
 * assert.equal(csvField('a "b", c'), '"a ""b"", c"');
 * ```
 */
export function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
