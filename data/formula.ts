/**
 * Model formulas, as in R (Wilkinson & Rogers 1973; Chambers & Hastie 1992):
 * `y ~ x1 + x2 + x1:x2 + region`.
 *
 * ```
 *  formula  := response "~" rhs
 *  rhs      := item (("+" | "-") item)*        a leading "-" or "+" is allowed
 *  item     := "1" | "0" | product
 *  product  := inter ("*" inter)*               a*b = a + b + a:b (every sub-product)
 *  inter    := name (":" name)*                 an interaction (order ignored: a:b = b:a)
 *  name     := [A-Za-z_.][A-Za-z0-9_.]*  |  `any text but a backquote`
 * ```
 *
 * The intercept is in by default; `- 1`, `+ 0` or a leading `0 +` removes it,
 * `+ 1` puts it back. `- term` removes a term stated earlier. Terms are
 * ordered as R orders them: by degree (main effects, then two-way
 * interactions, …), in order of first appearance within a degree; a repeated
 * term is kept once. Parentheses, `^`, `%in%`, `.` and functions of columns
 * (`log(x)`) are not supported: a message says so.
 *
 * References: Chambers & Hastie (1992), "Statistical Models in S", ch. 2;
 * R's `?formula` and `model.matrix`.
 *
 * @module
 */

/** A parsed formula. */
export interface Formula {
  /** The formula as given. */
  readonly text: string;
  /** The response column. */
  readonly response: string;
  /** Whether the model has an intercept. */
  readonly intercept: boolean;
  /** The terms, each a list of column names (one for a main effect), in model order. */
  readonly terms: readonly (readonly string[])[];
}

type _Token = { kind: "name" | "num" | "op"; text: string; pos: number };

function _tokens(s: string, text: string): _Token[] {
  const out: _Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if ("~+-:*".includes(c)) {
      out.push({ kind: "op", text: c, pos: i });
      i++;
      continue;
    }
    if (c === "`") {
      const end = s.indexOf("`", i + 1);
      if (end < 0) throw _err(text, `an unclosed backquote at position ${i + 1}`);
      out.push({ kind: "name", text: s.slice(i + 1, end), pos: i });
      i = end + 1;
      continue;
    }
    const m = /^[A-Za-z_.][A-Za-z0-9_.]*/.exec(s.slice(i)) ??
      /^[0-9]+(?:\.[0-9]*)?/.exec(s.slice(i));
    if (!m) {
      const what = "()^%/|".includes(c)
        ? `"${c}" at position ${
          i + 1
        } (parentheses, ^, %in%, / and functions of columns are not supported; make a column instead)`
        : `an unexpected character "${c}" at position ${i + 1}`;
      throw _err(text, what);
    }
    const kind = /^[0-9]/.test(m[0]) ? "num" : "name";
    if (kind === "name" && s[i + m[0].length] === "(") {
      throw _err(
        text,
        `a function call ${m[0]}(…) at position ${
          i + 1
        } (functions of columns are not supported; make a column instead)`,
      );
    }
    out.push({ kind, text: m[0], pos: i });
    i += m[0].length;
  }
  return out;
}

function _err(text: string, what: string): RangeError {
  return new RangeError(`formula ${JSON.stringify(text)}: ${what}`);
}

/**
 * Parse a formula.
 *
 * @param text E.g. `"y ~ x1 * region - 1"`.
 * @returns The response, the intercept flag and the expanded terms.
 * @throws {RangeError} Quoting the formula and saying what is wrong where.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFormula } from "./formula.ts";
 * const f = parseFormula("y ~ x1 * region");
 * assert.deepEqual(f.terms, [["x1"], ["region"], ["x1", "region"]]);
 * assert.equal(f.intercept, true);
 * assert.equal(parseFormula("y ~ 0 + x").intercept, false);
 * assert.throws(() => parseFormula("y ~ x +"), /ends after "\+"/);
 * ```
 */
export function parseFormula(text: string): Formula {
  if (typeof text !== "string") {
    throw new TypeError(`formula must be a string, got ${typeof text}`);
  }
  const toks = _tokens(text, text);
  const tilde = toks.findIndex((t) => t.text === "~" && t.kind === "op");
  if (tilde < 0) throw _err(text, 'no "~"; write it as "response ~ terms", e.g. "y ~ x1 + x2"');
  if (toks.filter((t) => t.text === "~").length > 1) throw _err(text, 'more than one "~"');
  const lhs = toks.slice(0, tilde), rhs = toks.slice(tilde + 1);
  if (lhs.length !== 1 || lhs[0].kind !== "name") {
    throw _err(text, 'the left of "~" must be one response column');
  }
  if (rhs.length === 0) {
    throw _err(text, 'nothing after "~"; give terms, or "1" for an intercept only');
  }
  let intercept = true;
  const terms: string[][] = [];
  const key = (t: readonly string[]) => [...t].sort().join("\u0000");
  let k = 0;
  let sign = 1;
  if (rhs[0].kind === "op" && (rhs[0].text === "+" || rhs[0].text === "-")) {
    sign = rhs[0].text === "-" ? -1 : 1;
    k = 1;
  }
  for (;;) {
    if (k >= rhs.length) throw _err(text, `ends after "${rhs[k - 1].text}"; a term is missing`);
    const t = rhs[k];
    if (t.kind === "num") {
      if (t.text !== "0" && t.text !== "1") {
        throw _err(
          text,
          `a number ${t.text} at position ${t.pos + 1} (only 0 and 1 mean something)`,
        );
      }
      intercept = (t.text === "1") === (sign > 0);
      k++;
    } else {
      // product of interactions
      const factors: string[][] = [];
      for (;;) {
        const inter: string[] = [];
        for (;;) {
          const n = rhs[k];
          if (n === undefined) {
            throw _err(text, `ends after "${rhs[k - 1].text}"; a column name is missing`);
          }
          if (n.kind !== "name") {
            throw _err(text, `expected a column name at position ${n.pos + 1}, got "${n.text}"`);
          }
          if (!inter.includes(n.text)) inter.push(n.text);
          k++;
          if (rhs[k]?.text === ":") {
            k++;
            continue;
          }
          break;
        }
        factors.push(inter);
        if (rhs[k]?.text === "*") {
          k++;
          continue;
        }
        break;
      }
      const expanded: string[][] = [];
      for (let mask = 1; mask < 1 << factors.length; mask++) {
        const t: string[] = [];
        for (let j = 0; j < factors.length; j++) {
          if (mask & (1 << j)) { for (const v of factors[j]) if (!t.includes(v)) t.push(v); }
        }
        expanded.push(t);
      }
      expanded.sort((a, b) => a.length - b.length);
      for (const t of expanded) {
        const i = terms.findIndex((u) => key(u) === key(t));
        if (sign > 0 && i < 0) terms.push(t);
        if (sign < 0 && i >= 0) terms.splice(i, 1);
      }
    }
    if (k >= rhs.length) break;
    const op = rhs[k];
    if (op.kind !== "op" || (op.text !== "+" && op.text !== "-")) {
      throw _err(text, `expected "+" or "-" at position ${op.pos + 1}, got "${op.text}"`);
    }
    sign = op.text === "-" ? -1 : 1;
    k++;
  }
  const ordered = terms
    .map((t, i) => ({ t, i }))
    .sort((a, b) => a.t.length - b.t.length || a.i - b.i)
    .map((e) => e.t);
  const response = lhs[0].text;
  for (const t of ordered) {
    if (t.includes(response)) {
      throw _err(text, `the response ${JSON.stringify(response)} also appears on the right of "~"`);
    }
  }
  if (ordered.length === 0 && !intercept) {
    throw _err(text, "no terms and no intercept: the model would have no parameters");
  }
  return { text, response, intercept, terms: ordered };
}
