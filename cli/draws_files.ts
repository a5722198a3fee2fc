/**
 * Reading draws files given on the command line (`summary`, `check`,
 * `compare`): each file read whole, refused if it is binary (Parquet, a row
 * store) or the command's `--data` file, and parsed as one table of chains
 * (tallmc's CSV or CmdStan's, interrupted runs included).
 *
 * @module
 */
import { type DrawsTable, parseDrawsCsv } from "../data/draws_csv.ts";
import { CliUsageError } from "./args.ts";
import { binaryKind } from "./file_kind.ts";
import { isSameFile } from "./safe_output.ts";

/**
 * Read and parse draws files; every failure is a {@link CliUsageError} that
 * names the file.
 *
 * @param paths The files, resolved.
 * @param options `dataPath`: the command's `--data` file, refused as draws;
 *   `binaryHint`: text added to the message for a binary file.
 * @returns The draws of all files as one table (one or more chains each).
 */
export async function readDrawsFiles(
  paths: readonly string[],
  options: { dataPath?: string; binaryHint?: string } = {},
): Promise<DrawsTable> {
  const { dataPath } = options;
  if (dataPath !== undefined) {
    for (const p of paths) {
      if (p === dataPath || isSameFile(p, dataPath)) {
        throw new CliUsageError(`${p} is the --data file; give the draws file of tallmc sample`);
      }
    }
  }
  const texts: string[] = [];
  for (const path of paths) {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(path);
    } catch (e) {
      throw new CliUsageError(`cannot read ${path}: ${(e as Error).message}`);
    }
    const kind = binaryKind(bytes);
    if (kind !== null) {
      throw new CliUsageError(`${path} is ${kind}, not a draws CSV${options.binaryHint ?? ""}`);
    }
    texts.push(new TextDecoder().decode(bytes));
  }
  try {
    return parseDrawsCsv(texts, { sources: [...paths], interrupted: true });
  } catch (e) {
    const msg = (e as Error).message;
    throw new CliUsageError(paths.some((p) => msg.includes(p)) ? msg : `${paths[0]}: ${msg}`);
  }
}
