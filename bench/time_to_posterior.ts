/**
 * Time to posterior, end to end: the whole `tallmc sample --sampler hmc-ecs`
 * command (read the file, warm up, sample, write the draws) run as a
 * subprocess on HIGGS-shaped logistic data (intercept + 29 columns), from
 * Parquet (f32) and from CSV, beside
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
 * The whole command runs with `TALLMC_PHASES=1` (samplers/_phase_marks.ts):
 * its phases are printed after its line, from the subprocess's start:
 * start-up and module loading, flags, the read and the model, the sampler,
 * the stop watch, each chain worker's start-up, each chain's centring (to its
 * first iteration), warm-up and sampling, the draws file, the summary, the
 * verdict and the exit.
 *
 * The files are made once per n in `--dir` (kept there and reused), all with
 * the same rows (`bench/tall_data.ts`'s generator, seed 1, f32 values):
 *
 * - `parquet`: FLOAT covariates, written by that generator;
 * - `csv`: each f32 value in its shortest decimal form (at most 9
 *   significant digits; what an f32 column becomes when written by a tool
 *   that prints floats shortest), 0/1 responses: 318 MB at 10⁶ rows;
 * - `csv17`: the Parquet file through `tallmc convert` (f64 shortest form of
 *   each f32 value, 16–17 digits): 571 MB at 10⁶ rows.
 *
 * Both CSV files have no intercept column (the CLI adds it), so every file
 * gives the same model: d = 30.
 *
 *   deno run -A bench/time_to_posterior.ts --n 1e6,1e7,1e8 [--formats parquet,csv,csv17]
 *     [--dir /tmp/ttp] [--chains 4] [--workers N] [--repeats 1] [--skip-read] [--no-ffi]
 *     [--no-malloc-thp] [--host-memory both|cold|backed|as-found] [--settle 6] [--json out.json]
 *
 * **The host's memory.** On a virtual machine whose host takes back the
 * memory the guest frees (free page reporting, a balloon), the first touch
 * of a page the host no longer backs costs far more than the guest's own
 * page fault: 1.45 GB of fresh memory, in huge pages, took 3.4 s to touch
 * here a few seconds after the last run and 0.17 s right after another
 * process had touched and freed it (docs/time_to_posterior.md). A command
 * touches its peak RSS at least once, so that cost is in its time. By
 * default (`--host-memory both`) each whole command runs twice:
 *
 * - **cold**: after `--settle` seconds of idle (the host has taken back what
 *   the last run freed);
 * - **backed**: right after `bench/_touch_memory.ts` touched and freed as
 *   many MB as the cold run's peak RSS (the guest hands the command pages the
 *   host still backs, as on a machine without that reclaim). That touch,
 *   made after the same idle, is printed too: the time any program needs
 *   just to touch that much fresh memory here.
 *
 * Where the guest's kernel counts the free memory it has reported to the
 * host (`/sys/module/page_reporting/parameters/reported_kib`), the MB it
 * reported in each idle are printed and kept (`settleReportedMb`): a cold
 * run after an idle in which it reported none was not cold.
 *
 * `--host-memory cold` or `backed` runs one of the two (backed needs a
 * first, cold run for the size); `as-found` runs the command once with no
 * idle and no touch (whatever state the last command left).
 *
 * The CLI runs as `deno task cli` runs it: with its permissions,
 * `--allow-ffi` included (with it the core's memory is backed by
 * transparent huge pages on Linux, core/huge_pages.ts; `--no-ffi` runs it
 * without that permission), and with its environment variable
 * `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` (glibc's malloc asks for huge
 * pages too, docs/huge_pages.md; `--no-malloc-thp` runs it without).
 *
 * Minutes at n = 10⁷ (most of it making the files); not part of `deno bench`.
 * n = 10⁸ is skipped with the reason: its X alone (12 GB in f32) exceeds the
 * 4 GiB of the one WebAssembly memory the CLI loads the rows into.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { generatePhase, higgsShapedChunks, PeakMemory } from "./tall_data.ts";
import { settle } from "./_host_memory.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const CLI = `${ROOT}cli.ts`;

/** One measured command. */
interface Timed {
  seconds: number;
  /** User + system CPU seconds of the subprocess (from `/usr/bin/time -v`). */
  cpuSeconds: number | null;
  peakRssMb: number | null;
  stderr: string;
  /** Phase marks (when run with phases). */
  marks: Mark[];
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

/** The environment `deno task cli` adds (see the module notes). */
let taskEnv: Record<string, string> = { GLIBC_TUNABLES: "glibc.malloc.hugetlb=1" };

async function run(cmd: string[], label: string, phases = false): Promise<Timed> {
  const wrap = await hasTimeV();
  const args = wrap ? ["-v", ...cmd] : cmd.slice(1);
  const epoch0 = performance.timeOrigin + performance.now(), t0 = performance.now();
  const r = await new Deno.Command(wrap ? "/usr/bin/time" : cmd[0], {
    args,
    stdout: "null",
    stderr: "piped",
    env: phases ? { ...taskEnv, TALLMC_PHASES: "1" } : taskEnv,
  }).output();
  const seconds = (performance.now() - t0) / 1000;
  const epochEnd = epoch0 + seconds * 1000;
  const stderr = new TextDecoder().decode(r.stderr);
  if (!r.success) throw new Error(`${label} failed (exit ${r.code}):\n${stderr.slice(-2000)}`);
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(stderr);
  const cpuSeconds = user && sys ? Number(user[1]) + Number(sys[1]) : null;
  const marks: Mark[] = [];
  for (const line of stderr.split("\n")) {
    const p = /^tallmc-phase (\S+) ([\d.]+)$/.exec(line);
    if (p !== null) marks.push({ name: p[1], ms: Number(p[2]) - epoch0 });
  }
  if (phases) marks.push({ name: "exit", ms: epochEnd - epoch0 });
  return { seconds, cpuSeconds, peakRssMb: m ? Number(m[1]) / 1024 : null, stderr, marks };
}

/**
 * Write the generator's rows (seed 1, the Parquet file's rows) as CSV with
 * each f32 covariate in its shortest decimal form: the fewest significant
 * digits (≤ 9) that read back, rounded to f32, as the same value.
 */
async function writeShortestCsv(path: string, n: number): Promise<void> {
  const tmp = `${path}.tmp`;
  const file = await Deno.open(tmp, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  const d = 30;
  try {
    const header = ["y", ...Array.from({ length: d - 1 }, (_, j) => `x${j + 1}`)];
    let text = header.join(",") + "\n";
    for (const chunk of higgsShapedChunks({ n, seed: 1, storage: "f32" })) {
      const lines: string[] = [];
      for (let i = 0; i < chunk.numRows; i++) {
        let line = chunk.y[i] === 1 ? "1" : "0";
        for (let j = 1; j < d; j++) line += "," + shortestF32(chunk.x[i * d + j]);
        lines.push(line);
      }
      text += lines.join("\n") + "\n";
      const bytes = enc.encode(text);
      for (let off = 0; off < bytes.length;) off += await file.write(bytes.subarray(off));
      text = "";
    }
  } finally {
    file.close();
  }
  await Deno.rename(tmp, path);
}

/**
 * The shortest decimal text that reads back (rounded to f32) as the f32
 * value v. Whether p significant digits read back is monotone in p (the
 * nearest (p+1)-digit decimal is at least as close as the nearest p-digit
 * one, itself a (p+1)-digit decimal), so the search starts at 8 digits,
 * where most values of a continuous column land, and walks down.
 */
function shortestF32(v: number): string {
  let t = Number(v.toPrecision(8));
  if (Math.fround(t) !== v) return String(Number(v.toPrecision(9)));
  for (let p = 7; p >= 1; p--) {
    const u = Number(v.toPrecision(p));
    if (Math.fround(u) !== v) break;
    t = u;
  }
  return String(t);
}

/** A phase mark: its name and milliseconds since the subprocess was started. */
interface Mark {
  name: string;
  ms: number;
}

/**
 * The phases of a whole run from its marks: each main-thread mark's time
 * since the previous one, and per chain its centring (start to first
 * iteration), warm-up and sampling, and each worker's start-up.
 */
function phaseLines(marks: Mark[]): string[] {
  const at = new Map(marks.map((m) => [m.name, m.ms]));
  const main = [
    ["modules-loaded", "Deno start-up + module loading"],
    ["flags-checked", "flags and --data checks"],
    ["data-loaded", "read the file + build the model"],
    ["sampler-built", "build the sampler"],
    ["stop-watch-started", "signal watcher worker"],
    ["chains-done", "chains (workers' start-up, warm-up, sampling)"],
    ["draws-written", "draws file committed"],
    ["summary-printed", "summary table"],
    ["verdict-printed", "verdict"],
    ["exit", "exit"],
  ];
  const out: string[] = [];
  let prev = 0;
  for (const [name, label] of main) {
    const t = at.get(name);
    if (t === undefined) continue;
    out.push(
      `    ${label.padEnd(48)} ${((t - prev) / 1000).toFixed(3)} s (at ${(t / 1000).toFixed(3)})`,
    );
    prev = t;
  }
  const start = at.get("stop-watch-started") ?? 0;
  const workers = marks.filter((m) => m.name === "worker-ready").map((m) => m.ms);
  const loaded = marks.filter((m) => m.name === "worker-modules-loaded").map((m) => m.ms);
  if (workers.length > 0) {
    out.push(
      `    chain workers: modules loaded at +${
        loaded.map((t) => ((t - start) / 1000).toFixed(3)).join(", +")
      } s, ready at +${workers.map((t) => ((t - start) / 1000).toFixed(3)).join(", +")} s`,
    );
  }
  for (let c = 0; at.has(`chain${c}-end`); c++) {
    const s0 = at.get(`chain${c}-start`) ?? start, i1 = at.get(`chain${c}-iteration1`)!;
    const w = at.get(`chain${c}-warmup-end`) ?? i1, e = at.get(`chain${c}-end`)!;
    out.push(
      `    chain ${c}: starts at +${((s0 - start) / 1000).toFixed(3)} s; centring + iteration 1 ${
        ((i1 - s0) / 1000).toFixed(3)
      } s, warm-up ${((w - i1) / 1000).toFixed(3)} s, sampling ${((e - w) / 1000).toFixed(3)} s`,
    );
  }
  return out;
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

const _USAGE = `Usage: deno run -A bench/time_to_posterior.ts [--n 1e6,1e7,1e8]
  [--formats parquet,csv,csv17] [--dir /tmp/ttp] [--chains 4] [--workers N]
  [--warmup 1000] [--samples 1000] [--repeats 1] [--skip-read] [--no-ffi] [--no-malloc-thp]
  [--host-memory both|cold|backed|as-found] [--settle SECONDS] [--json out.json]`;

/** Print `message` and the usage on stderr and exit with status 2. */
function usageError(message: string): never {
  console.error(`time_to_posterior: ${message}\n${_USAGE}`);
  Deno.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    args: Deno.args,
    options: {
      n: { type: "string", default: "1e6" },
      formats: { type: "string", default: "parquet,csv,csv17" },
      dir: { type: "string", default: "/tmp/ttp" },
      chains: { type: "string", default: "4" },
      workers: { type: "string" },
      warmup: { type: "string", default: "1000" },
      samples: { type: "string", default: "1000" },
      repeats: { type: "string", default: "1" },
      "skip-read": { type: "boolean", default: false },
      "no-ffi": { type: "boolean", default: false },
      "no-malloc-thp": { type: "boolean", default: false },
      "host-memory": { type: "string", default: "both" },
      settle: { type: "string", default: "6" },
      json: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
} catch (e) {
  usageError((e as Error).message);
}
const { values } = parsed;
if (values.help) {
  console.log(_USAGE);
  Deno.exit(0);
}
const sizes = values.n!.split(",").map((s) => Math.round(Number(s)));
for (const n of sizes) {
  if (!(n >= 1000) || !Number.isFinite(n)) usageError(`--n: bad size in ${values.n}`);
}
const formats = values.formats!.split(",").map((s) => s.trim());
for (const f of formats) {
  if (f !== "csv" && f !== "csv17" && f !== "parquet" && f !== "rows") {
    usageError(`--formats: expected parquet, csv, csv17 and/or rows, got ${f}`);
  }
}
const dir = values.dir!, repeats = Number(values.repeats);
if (!(Number.isInteger(repeats) && repeats >= 1)) {
  usageError(`--repeats: expected a whole number ≥ 1, got ${values.repeats}`);
}
const hostMemory = values["host-memory"]!;
if (!["both", "cold", "backed", "as-found"].includes(hostMemory)) {
  usageError(`--host-memory: expected both, cold, backed or as-found, got ${hostMemory}`);
}
const settleSeconds = Number(values.settle);
if (!(settleSeconds >= 0 && settleSeconds <= 600)) {
  usageError(`--settle: expected seconds in 0…600, got ${values.settle}`);
}
if (values["no-malloc-thp"]) taskEnv = {};
await Deno.mkdir(dir, { recursive: true });
const deno = Deno.execPath();
// The permissions of `deno task cli`; --allow-ffi lets the core's memory have
// huge pages (core/huge_pages.ts); --no-ffi measures the command without.
const denoRun = [
  deno,
  "run",
  "--allow-read",
  `--allow-write=${dir},/tmp`,
  "--allow-env",
  ...(values["no-ffi"] ? [] : ["--allow-ffi"]),
  CLI,
];
const results: Record<string, unknown>[] = [];

/** The host's memory when a command runs (see the module notes). */
type HostState = "cold" | "backed" | "as-found";

function stateLabel(state: HostState): string {
  return state === "cold"
    ? "cold host memory"
    : state === "backed"
    ? "host memory backed"
    : "host memory as found";
}

/** What bench/_touch_memory.ts printed. */
interface TouchResult {
  mb: number;
  seconds: number;
  hugePages: boolean;
}

/** Touch and free `mb` MB of fresh memory in a subprocess (bench/_touch_memory.ts). */
async function touchMemory(mb: number): Promise<TouchResult> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...(values["no-ffi"] ? [] : ["--allow-ffi"]),
      `${ROOT}bench/_touch_memory.ts`,
      String(Math.min(4095, Math.max(1, mb))),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(r.stdout).trim();
  if (!r.success) {
    throw new Error(`_touch_memory failed: ${new TextDecoder().decode(r.stderr).slice(-500)}`);
  }
  return JSON.parse(out) as TouchResult;
}

/** Bytes of X (f32, 30 columns) and y in the core's memory for n rows. */
const dataBytes = (n: number) => n * (30 * 4 + 8);
const MEMORY_BYTES = 2 ** 32; // a wasm32 memory

for (const n of sizes) {
  const fits = dataBytes(n) <= MEMORY_BYTES;
  if (!fits) {
    console.log(
      `n = ${n.toExponential(0)}: X (f32) and y need ${
        (dataBytes(n) / 2 ** 30).toFixed(1)
      } GiB, more than the 4 GiB of the one WebAssembly memory "sample" reads a file into: each file goes through "convert … OUT.rows" and "sample --data OUT.rows" (the rows stay in the file)`,
    );
  }
  const parquet = `${dir}/higgs_${n}.parquet`, csv17 = `${dir}/higgs_${n}.csv`;
  const csv = `${dir}/higgs_${n}_f32.csv`;
  if (!(await exists(parquet))) {
    const r = await generatePhase(parquet, { n, seed: 1 }, new PeakMemory());
    console.log(`made ${parquet} in ${r.seconds.toFixed(1)} s`);
  }
  if (formats.includes("csv17") && !(await exists(csv17))) {
    const r = await run([...denoRun, "convert", parquet, csv17, "--response", "y"], "convert");
    console.log(`made ${csv17} in ${r.seconds.toFixed(1)} s`);
  }
  if (formats.includes("csv") && !(await exists(csv))) {
    const t0 = performance.now();
    await writeShortestCsv(csv, n);
    console.log(`made ${csv} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  for (const format of formats) {
    const file = format === "csv" ? csv : format === "csv17" ? csv17 : parquet;
    const mb = (await Deno.stat(file)).size / 1e6;
    // Through a row store: "rows", or any file whose rows "sample" cannot
    // hold in one WebAssembly memory (kept only for "rows", made once).
    const viaRows = format === "rows" || !fits;
    const rowsFile = `${dir}/higgs_${n}.${format === "rows" ? "parquet" : format}.rows`;
    const convertCmd = [
      ...denoRun,
      "convert",
      file,
      rowsFile,
      "--response",
      "y",
      "--storage",
      "f32",
    ];
    if (format === "rows" && !(await exists(rowsFile))) {
      const r = await run(convertCmd, "convert");
      console.log(`made ${rowsFile} in ${r.seconds.toFixed(1)} s`);
    }
    const common = [
      "sample",
      "--family",
      "logistic",
      "--data",
      viaRows ? rowsFile : file,
      "--response",
      "y",
      // No file holds an intercept column (the Parquet writer leaves it out): the CLI adds
      // it. A row store holds f32 cells already.
      ...(viaRows ? [] : ["--f32"]),
      "--quiet",
    ];
    for (let rep = 0; rep < repeats; rep++) {
      await run(["cat", file], "cat"); // into the page cache
      const cat = await run(["sh", "-c", `cat '${file}' > /dev/null`], "cat");
      // The user's first command through a row store (timed with its file
      // left in the page cache, as the sample command then finds it).
      if (viaRows && format !== "rows") await Deno.remove(rowsFile).catch(() => {});
      const convert = viaRows && format !== "rows" ? await run(convertCmd, "convert") : null;
      const rowsCat = viaRows
        ? await run(["sh", "-c", `cat '${rowsFile}' > /dev/null`], "cat rows")
        : null;
      const read = values["skip-read"] || viaRows ? null : await run([
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
      const sampleCmd = [
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
      ];
      // The states to run the whole command in (see the module notes).
      const states: HostState[] = hostMemory === "both"
        ? ["cold", "backed"]
        : [hostMemory as HostState];
      let coldPeakMb: number | null = null;
      const rss = (v: number | null) => v === null ? "?" : `${v.toFixed(0)} MB`;
      const cpu = (v: number | null) => v === null ? "" : ` (CPU ${v.toFixed(1)} s)`;
      for (const state of states) {
        let touch: TouchResult | null = null;
        // The guest's memory reported to the host in the idle before the
        // command (cold) or before the touch (backed).
        let reportedMb: number | null = null;
        if (state === "cold" || state === "backed") reportedMb = await settle(settleSeconds);
        if (state === "backed") {
          // As many MB as the cold run's peak (a first cold run gives it).
          if (coldPeakMb === null) {
            coldPeakMb = (await run(sampleCmd, "sample (for its peak RSS)")).peakRssMb;
            reportedMb = await settle(settleSeconds);
          }
          touch = await touchMemory(Math.ceil(coldPeakMb ?? dataBytes(n) / 2 ** 20));
        }
        const whole = await run(sampleCmd, "sample", true);
        if (state === "cold") coldPeakMb = whole.peakRssMb;
        const row = {
          n,
          format,
          fileMb: mb,
          viaRows,
          convertSeconds: convert?.seconds ?? null,
          convertPeakRssMb: convert?.peakRssMb ?? null,
          rowsCatSeconds: rowsCat?.seconds ?? null,
          hostMemory: state,
          catSeconds: cat.seconds,
          readSeconds: read?.seconds ?? null,
          readCpuSeconds: read?.cpuSeconds ?? null,
          readPeakRssMb: read?.peakRssMb ?? null,
          touchMb: touch?.mb ?? null,
          touchSeconds: touch?.seconds ?? null,
          settleReportedMb: reportedMb,
          wholeSeconds: whole.seconds,
          wholeCpuSeconds: whole.cpuSeconds,
          wholePeakRssMb: whole.peakRssMb,
          chains: Number(values.chains),
          loadAverage: loadAverage(),
          phases: whole.marks,
        };
        results.push(row);
        console.log(
          `n = ${n.toExponential(0)} ${format.padEnd(7)} ${mb.toFixed(0)} MB: cat ${
            cat.seconds.toFixed(2)
          } s | ${
            convert !== null
              ? `convert to a row store ${convert.seconds.toFixed(2)} s${
                cpu(convert.cpuSeconds)
              }, peak ${rss(convert.peakRssMb)} | `
              : ""
          }${
            rowsCat !== null ? `cat of the row store ${rowsCat.seconds.toFixed(2)} s | ` : ""
          }CLI read alone ${
            read === null
              ? "not run"
              : `${read.seconds.toFixed(2)} s${cpu(read.cpuSeconds)}, peak ${rss(read.peakRssMb)}`
          } | whole hmc-ecs command${
            viaRows ? " from the row store" : ""
          } (${values.chains} chains, ${stateLabel(state)}) ${whole.seconds.toFixed(2)} s${
            cpu(whole.cpuSeconds)
          }, peak ${rss(whole.peakRssMb)}${
            convert !== null
              ? ` | convert + sample ${(convert.seconds + whole.seconds).toFixed(2)} s`
              : ""
          } | load ${row.loadAverage}`,
        );
        if (touch !== null) {
          console.log(
            `    (before it: touching ${touch.mb} MB of fresh memory${
              touch.hugePages ? " in huge pages" : ""
            }, ${settleSeconds} s after the last run, took ${touch.seconds.toFixed(2)} s)`,
          );
        }
        if (reportedMb !== null) {
          console.log(
            `    (in the ${settleSeconds} s idle before ${
              state === "cold" ? "it" : "the touch"
            }, the guest reported ${reportedMb.toFixed(0)} MB of free memory to the host)`,
          );
        }
        for (const line of phaseLines(whole.marks)) console.log(line);
      }
      // A row store made from a file that does not fit: removed (disk).
      if (viaRows && format !== "rows") await Deno.remove(rowsFile);
    }
  }
}
if (values.json !== undefined) {
  await Deno.writeTextFile(values.json, JSON.stringify(results, null, 2) + "\n");
}
