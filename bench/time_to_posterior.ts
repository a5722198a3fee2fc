/**
 * Time to posterior, end to end: the whole `tallmc sample --sampler hmc-ecs`
 * command (read the file, warm up, sample, write the draws) run as a
 * subprocess on HIGGS-shaped logistic data (1 + 29 columns), from Parquet
 * (f32) and from CSV, beside
 *
 * - `cat FILE > /dev/null` with the file in the page cache (the floor of
 *   any reader), and
 * - the CLI's read alone: the same command with `--sampler rwmh --chains 1
 *   --warmup 0 --samples 1` (read, build the model, one log-density, write
 *   one draw).
 *
 * Wall time is measured around the subprocess; peak RSS and CPU seconds
 * (user + system, all threads) are the subprocess's "Maximum resident set
 * size" and times from `/usr/bin/time -v` when that exists (else not
 * reported). The machine's load average is printed with each line: on a
 * shared machine the times are only comparable within one run.
 *
 * The files are made once per n in `--dir` (kept there and reused): Parquet
 * by `bench/tall_data.ts`'s generator, CSV by `tallmc convert`.
 *
 *   deno run -A bench/time_to_posterior.ts --n 1e6,1e7,1e8 [--formats parquet,csv]
 *     [--dir /tmp/ttp] [--chains 4] [--workers N] [--repeats 1] [--json out.json]
 *
 * Minutes at n = 10⁷ (most of it making the files); not part of `deno bench`.
 * n = 10⁸ is skipped with the reason: its X alone (12 GB in f32) exceeds the
 * 4 GiB of the one WebAssembly memory the CLI loads the rows into.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { generatePhase, PeakMemory } from "./tall_data.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const CLI = `${ROOT}cli.ts`;

/** One measured command. */
interface Timed {
  seconds: number;
  /** User + system CPU seconds of the subprocess (from `/usr/bin/time -v`). */
  cpuSeconds: number | null;
  peakRssMb: number | null;
  stderr: string;
}

let timeV: boolean | null = null;
async function hasTimeV(): Promise<boolean> {
  if (timeV === null) {
    try {
      const r = await new Deno.Command("/usr/bin/time", { args: ["-v", "true"], stderr: "piped" })
        .output();
      timeV = r.success;
    } catch {
      timeV = false;
    }
  }
  return timeV;
}

async function run(cmd: string[], label: string): Promise<Timed> {
  const wrap = await hasTimeV();
  const args = wrap ? ["-v", ...cmd] : cmd.slice(1);
  const t0 = performance.now();
  const r = await new Deno.Command(wrap ? "/usr/bin/time" : cmd[0], {
    args,
    stdout: "null",
    stderr: "piped",
  }).output();
  const seconds = (performance.now() - t0) / 1000;
  const stderr = new TextDecoder().decode(r.stderr);
  if (!r.success) throw new Error(`${label} failed (exit ${r.code}):\n${stderr.slice(-2000)}`);
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(stderr);
  const cpuSeconds = user && sys ? Number(user[1]) + Number(sys[1]) : null;
  return { seconds, cpuSeconds, peakRssMb: m ? Number(m[1]) / 1024 : null, stderr };
}

function loadAverage(): string {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    return "?";
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "1e6" },
    formats: { type: "string", default: "parquet,csv" },
    dir: { type: "string", default: "/tmp/ttp" },
    chains: { type: "string", default: "4" },
    workers: { type: "string" },
    warmup: { type: "string", default: "1000" },
    samples: { type: "string", default: "1000" },
    repeats: { type: "string", default: "1" },
    json: { type: "string" },
  },
});
const sizes = values.n!.split(",").map((s) => Math.round(Number(s)));
for (const n of sizes) {
  if (!(n >= 1000) || !Number.isFinite(n)) throw new RangeError(`--n: bad size in ${values.n}`);
}
const formats = values.formats!.split(",").map((s) => s.trim());
for (const f of formats) {
  if (f !== "csv" && f !== "parquet") {
    throw new RangeError(`--formats: expected csv and/or parquet, got ${f}`);
  }
}
const dir = values.dir!, repeats = Number(values.repeats);
await Deno.mkdir(dir, { recursive: true });
const deno = Deno.execPath();
const denoRun = [deno, "run", "--allow-read", `--allow-write=${dir}`, "--allow-env", CLI];
const results: Record<string, unknown>[] = [];

/** Bytes of X (f32, 30 columns) and y in the core's memory for n rows. */
const dataBytes = (n: number) => n * (30 * 4 + 8);
const MEMORY_BYTES = 2 ** 32; // a wasm32 memory

for (const n of sizes) {
  if (dataBytes(n) > MEMORY_BYTES) {
    console.log(
      `n = ${n.toExponential(0)}: skipped: X (f32) and y need ${
        (dataBytes(n) / 2 ** 30).toFixed(1)
      } GiB, more than the 4 GiB of one WebAssembly memory (the CLI loads every row into one)`,
    );
    continue;
  }
  const parquet = `${dir}/higgs_${n}.parquet`, csv = `${dir}/higgs_${n}.csv`;
  if (!(await exists(parquet))) {
    const r = await generatePhase(parquet, { n, seed: 1 }, new PeakMemory());
    console.log(`made ${parquet} in ${r.seconds.toFixed(1)} s`);
  }
  if (formats.includes("csv") && !(await exists(csv))) {
    const r = await run([...denoRun, "convert", parquet, csv, "--response", "y"], "convert");
    console.log(`made ${csv} in ${r.seconds.toFixed(1)} s`);
  }
  for (const format of formats) {
    const file = format === "csv" ? csv : parquet;
    const mb = (await Deno.stat(file)).size / 1e6;
    const common = [
      "sample",
      "--family",
      "logistic",
      "--data",
      file,
      "--response",
      "y",
      "--no-intercept", // the file's "(Intercept)" column is the intercept
      "--f32",
      "--quiet",
    ];
    for (let rep = 0; rep < repeats; rep++) {
      await run(["cat", file], "cat"); // into the page cache
      const cat = await run(["sh", "-c", `cat '${file}' > /dev/null`], "cat");
      const read = await run([
        ...denoRun,
        ...common,
        "--sampler",
        "rwmh",
        "--chains",
        "1",
        "--workers",
        "0",
        "--warmup",
        "0",
        "--samples",
        "1",
        "--out",
        `${dir}/read_only.csv`,
      ], "read alone");
      const whole = await run([
        ...denoRun,
        ...common,
        "--sampler",
        "hmc-ecs",
        "--chains",
        values.chains!,
        ...(values.workers !== undefined ? ["--workers", values.workers] : []),
        "--warmup",
        values.warmup!,
        "--samples",
        values.samples!,
        "--out",
        `${dir}/draws.csv`,
      ], "sample");
      const row = {
        n,
        format,
        fileMb: mb,
        catSeconds: cat.seconds,
        readSeconds: read.seconds,
        readCpuSeconds: read.cpuSeconds,
        readPeakRssMb: read.peakRssMb,
        wholeSeconds: whole.seconds,
        wholeCpuSeconds: whole.cpuSeconds,
        wholePeakRssMb: whole.peakRssMb,
        chains: Number(values.chains),
        loadAverage: loadAverage(),
      };
      results.push(row);
      const rss = (v: number | null) => v === null ? "?" : `${v.toFixed(0)} MB`;
      const cpu = (v: number | null) => v === null ? "" : ` (CPU ${v.toFixed(1)} s)`;
      console.log(
        `n = ${n.toExponential(0)} ${format.padEnd(7)} ${mb.toFixed(0)} MB: cat ${
          cat.seconds.toFixed(2)
        } s | CLI read alone ${read.seconds.toFixed(2)} s${cpu(read.cpuSeconds)}, peak ${
          rss(read.peakRssMb)
        } | whole hmc-ecs command (${values.chains} chains) ${whole.seconds.toFixed(2)} s${
          cpu(whole.cpuSeconds)
        }, peak ${rss(whole.peakRssMb)} | load ${row.loadAverage}`,
      );
    }
  }
}
if (values.json !== undefined) {
  await Deno.writeTextFile(values.json, JSON.stringify(results, null, 2) + "\n");
}
