/**
 * A look at `--data` before it is loaded: whether it is Parquet, its
 * column names and first row, whether the response is text, and the
 * formula `response ~ columns` written for data read as a table.
 *
 * @module
 */
import { peekInputText } from "../data/csv.ts";
import { parseColumnTable } from "../data/formula_csv.ts";
import { CliUsageError } from "./usage.ts";
import { delimiterFromFlags, type FamilyChoice } from "./model_flags.ts";

/** Whether `--data` names a Parquet file (by its extension). */
export function isParquetPath(path: string): boolean {
  return /\.parquet$/i.test(path);
}

/**
 * The column names and the first data row of a CSV file (its first 64 KiB),
 * or a Parquet file's column names with "text" as the first cell of its text
 * columns.
 */
export async function peekColumns(
  path: string,
  delimiter: string | undefined,
): Promise<{ names: string[]; first: string[] | null }> {
  if (isParquetPath(path)) {
    // Imported here: a CSV run does not load the Parquet readers.
    const { parquetColumns } = await import("../data/parquet_formula.ts");
    const cols = await parquetColumns(path);
    return { names: cols.map((c) => c.name), first: cols.map((c) => (c.text ? "text" : "0")) };
  }
  const peek = await peekInputText(path, 65536);
  let text = peek.text;
  if (peek.more) text = text.slice(0, Math.max(text.lastIndexOf("\n"), 0));
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    const t = parseColumnTable(text, { delimiter });
    return { names: [...t.names], first: t.columns.map((c) => c[0]) };
  } catch {
    const header = text.split(/\r?\n/)[0] ?? "";
    return { names: header.split(delimiter ?? ",").map((s) => s.trim()), first: null };
  }
}

/** Whether the response's first cell is text (then the file is read as a table). */
export async function responseIsText(
  path: string,
  response: string | undefined,
  delimiter: string | undefined,
): Promise<boolean> {
  if (response === undefined) return false;
  try {
    const { names, first } = await peekColumns(path, delimiter);
    const j = names.indexOf(response);
    return first !== null && j >= 0 && first[j] !== "" && !Number.isFinite(Number(first[j]));
  } catch {
    return false; // the streaming loader reports an unreadable file
  }
}

/** `response ~ columns` (back-quoted) for data read as a table without --formula. */
export async function formulaFor(
  path: string,
  values: Record<string, unknown>,
  choice: FamilyChoice,
): Promise<string> {
  const response = values.response as string;
  const aux = [choice.offset, choice.trials].filter((v): v is string => v !== undefined);
  let columns: string[];
  if (values.columns !== undefined) {
    columns = (values.columns as string).split(",").map((s) => s.trim());
    for (const c of columns) {
      if (c === choice.offset || c === choice.trials) {
        const flag = c === choice.offset ? "--offset" : "--trials";
        throw new CliUsageError(
          `--columns names the ${flag} column ${JSON.stringify(c)}; it enters the model as the ${
            flag.slice(2)
          }, not as a covariate`,
        );
      }
    }
  } else {
    const { names } = await peekColumns(path, delimiterFromFlags(values));
    for (const a of aux) {
      if (!names.includes(a)) {
        const flag = a === choice.offset ? "--offset" : "--trials";
        throw new CliUsageError(
          `${flag} ${JSON.stringify(a)}: no such column in --data ${path} (columns: ${
            names.join(", ")
          })`,
        );
      }
    }
    columns = names.filter((n) => n !== response && !aux.includes(n));
  }
  for (const n of [response, ...columns]) {
    if (n.includes("`")) {
      throw new CliUsageError(
        `column ${JSON.stringify(n)} contains a backquote; rename it or use --formula`,
      );
    }
  }
  const rhs = [values["no-intercept"] ? "0" : "1", ...columns.map((c) => `\`${c}\``)];
  return `\`${response}\` ~ ${rhs.join(" + ")}`;
}
