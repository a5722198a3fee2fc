/**
 * Running the command line inside a test: `main()` with what it prints
 * captured instead of written.
 *
 * @module
 */
import { main } from "../cli.ts";

/** What a run of `main()` returned and printed. */
export interface CliRun {
  /** The exit code. */
  code: number;
  /** Lines printed to standard output, joined by newlines. */
  out: string;
  /** Lines printed to standard error, joined by newlines. */
  err: string;
}

/**
 * Run `main(args)` capturing console.log and console.error.
 *
 * @param args The command line (without the program name).
 * @returns Exit code and the captured output.
 */
export async function runCli(args: string[]): Promise<CliRun> {
  const out: string[] = [], err: string[] = [];
  const log = console.log, error = console.error;
  console.log = (...a: unknown[]) => out.push(a.join(" "));
  console.error = (...a: unknown[]) => err.push(a.join(" "));
  try {
    return { code: await main(args), out: out.join("\n"), err: err.join("\n") };
  } finally {
    console.log = log;
    console.error = error;
  }
}
