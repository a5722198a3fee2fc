/**
 * Output files that never destroy an input and never appear half-written.
 *
 * ```
 *  refuseSameFile(out, inputs)   dev/ino of out (through symlinks) ≠ every input's
 *  AtomicOutput.create(target)   DIR/.NAME.<pid>-<random>.part beside the target
 *    … write …
 *  commit()                      close, rename over the target (atomic on one file system)
 *  discard()                     close, remove the temporary file; the target is untouched
 * ```
 *
 * Files are compared by device and inode (`Deno.statSync`), not by their
 * path text, so a symlink or a hard link to an input is recognised. Where the
 * platform gives no inode, the resolved real paths are compared.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import { CliUsageError } from "./args.ts";

/** Device and inode of a file, following symlinks; null when it does not exist. */
function _identity(path: string): { dev: number; ino: number | null; real: string } | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    return null;
  }
  let real = path;
  try {
    real = Deno.realPathSync(path);
  } catch {
    // keep the path as given
  }
  return { dev: info.dev, ino: info.ino, real };
}

/**
 * Whether two paths name the same file: the same device and inode (through
 * symlinks and hard links). False when either does not exist.
 *
 * @param a A path.
 * @param b Another path.
 * @returns True for one file under two names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSameFile } from "./safe_output.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/a.csv`, "y\n1\n");
 * Deno.linkSync(`${dir}/a.csv`, `${dir}/b.csv`);
 * assert.equal(isSameFile(`${dir}/a.csv`, `${dir}/b.csv`), true);
 * assert.equal(isSameFile(`${dir}/a.csv`, `${dir}/none.csv`), false);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function isSameFile(a: string, b: string): boolean {
  const x = _identity(a), y = _identity(b);
  if (x === null || y === null) return false;
  if (x.ino !== null && y.ino !== null) return x.dev === y.dev && x.ino === y.ino;
  return x.real === y.real;
}

/**
 * Refuse an output that is one of the inputs (by device and inode, so also
 * through a symlink or a hard link), before anything is opened.
 *
 * @param output The output path and the flag it came from (`"--out"`).
 * @param inputs The input paths and their flags.
 * @returns Nothing.
 * @throws {CliUsageError} Naming both flags and paths.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { refuseSameFile } from "./safe_output.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/d.csv`, "y\n1\n");
 * Deno.linkSync(`${dir}/d.csv`, `${dir}/link.csv`);
 * assert.throws(
 *   () => refuseSameFile({ path: `${dir}/link.csv`, flag: "--out" }, [{ path: `${dir}/d.csv`, flag: "--data" }]),
 *   /--out .*link\.csv is the --data file .*a hard link to it/,
 * );
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function refuseSameFile(
  output: { path: string; flag: string },
  inputs: readonly { path: string; flag: string }[],
): void {
  const out = _identity(output.path);
  for (const input of inputs) {
    const same = out === null ? output.path === input.path : isSameFile(output.path, input.path);
    if (!same) continue;
    const how = out !== null && out.real !== output.path
      ? ` (through a symlink to ${out.real})`
      : out !== null && out.real !== (_identity(input.path)?.real ?? input.path)
      ? " (a hard link to it)"
      : "";
    throw new CliUsageError(
      `${output.flag} ${output.path} is the ${input.flag} file ${input.path}${how}: ` +
        `writing it would destroy the input; give another path`,
    );
  }
}

/**
 * Check that `path` can be written as an output file, without creating or
 * changing it: it is not a directory, and its directory exists and is
 * writable (the output is written beside it and renamed into place).
 *
 * @param path Absolute path.
 * @param flag The flag it came from (for messages), e.g. `"--out"`.
 * @returns Nothing.
 * @throws {CliUsageError} Naming the flag and the path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkWritable } from "./safe_output.ts";
 * assert.throws(() => checkWritable("/nonexistent-dir/x.csv", "--out"), /--out/);
 * ```
 */
export function checkWritable(path: string, flag: string): void {
  let info: Deno.FileInfo | null = null;
  try {
    info = Deno.statSync(path);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) {
      throw new CliUsageError(`${flag} ${path} cannot be checked: ${(e as Error).message}`);
    }
  }
  if (info?.isDirectory) {
    throw new CliUsageError(
      `${flag} ${path} is a directory; give a file name such as ${path}/draws.csv`,
    );
  }
  const dir = dirname(_target(path));
  try {
    const dinfo = Deno.statSync(dir);
    if (!dinfo.isDirectory) throw new Error(`${dir} is not a directory`);
    // Create and remove a probe file: the only portable writability test.
    const probe = `${dir}/.tallmc-write-test-${Deno.pid}`;
    Deno.writeTextFileSync(probe, "");
    Deno.removeSync(probe);
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound
      ? `the directory ${dir} does not exist`
      : e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotCapable
      ? `no permission to write in ${dir}`
      : (e as Error).message;
    throw new CliUsageError(`${flag} ${path} is not writable: ${why}`);
  }
}

/** The file a path names: through a symlink to its target, so the link is kept. */
function _target(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/**
 * A file written under a temporary name beside its target and renamed into
 * place by {@link AtomicOutput.commit}: until then the target (absent or a
 * previous file) is untouched, whatever happens to the run.
 */
export class AtomicOutput {
  /** The path the file gets on commit. */
  readonly target: string;
  /** The temporary path written meanwhile (same directory, so rename is atomic). */
  readonly tempPath: string;
  /** The open temporary file (null once committed or discarded). */
  file: Deno.FsFile | null;

  private constructor(target: string, tempPath: string, file: Deno.FsFile) {
    this.target = target;
    this.tempPath = tempPath;
    this.file = file;
  }

  /**
   * Create the temporary file beside `path` (a symlink's target is written,
   * not the link).
   *
   * @param path The output path.
   * @param suffix Appended to the temporary name (e.g. `".parquet"` for a
   *   writer that reads the extension); default `".part"`.
   * @returns The output, open for writing.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { AtomicOutput } from "./safe_output.ts";
   * const dir = Deno.makeTempDirSync();
   * Deno.writeTextFileSync(`${dir}/o.csv`, "old\n");
   * const out = AtomicOutput.create(`${dir}/o.csv`);
   * out.file!.writeSync(new TextEncoder().encode("new\n"));
   * assert.equal(Deno.readTextFileSync(`${dir}/o.csv`), "old\n");
   * out.commit();
   * assert.equal(Deno.readTextFileSync(`${dir}/o.csv`), "new\n");
   * Deno.removeSync(dir, { recursive: true });
   * ```
   */
  static create(path: string, suffix = ".part"): AtomicOutput {
    const target = _target(path);
    const tag = `${Deno.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const tempPath = `${dirname(target)}/.${basename(target)}.${tag}${suffix}`;
    const file = Deno.openSync(tempPath, { write: true, createNew: true });
    return new AtomicOutput(target, tempPath, file);
  }

  /** Close the temporary file (if open) and rename it over the target. */
  commit(): void {
    this.#close();
    Deno.renameSync(this.tempPath, this.target);
  }

  /** Close and remove the temporary file; the target stays as it was. */
  discard(): void {
    this.#close();
    try {
      Deno.removeSync(this.tempPath);
    } catch {
      // already gone
    }
  }

  #close(): void {
    const f = this.file;
    this.file = null;
    if (f === null) return;
    try {
      f.close();
    } catch {
      // already closed
    }
  }
}
