/**
 * The cost of `summarize` at the CLI's default shape (4 chains × 30
 * parameters × 1000 draws of an AR(1) that repeats a draw now and then, as
 * rejected proposals do): the first call in a fresh process (each repeat is
 * its own process), that call after `_prepareSummary` (what `tallmc sample`
 * runs while its last chains finish) and warm calls. Wall milliseconds, and
 * the calling thread's CPU milliseconds (Linux: /proc/thread-self/schedstat;
 * less sensitive to other processes than wall time). The checksum of the
 * rows' bits must be the same for every checkout.
 *
 * Run: deno run -A bench/summary_speed.ts [--repeats 5] [--root DIR]
 * (`--root` times the diagnostics of another checkout, e.g. the one before a
 * change.)
 */
import { parseArgs } from "node:util";
import { Rng } from "../random/rng.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    repeats: { type: "string", default: "5" },
    root: { type: "string" },
    child: { type: "string" },
  },
});
const root = values.root === undefined
  ? new URL("..", import.meta.url).href
  : new URL(`file://${Deno.realPathSync(values.root)}/`).href;

/** CPU milliseconds of the calling thread so far (NaN where /proc is missing). */
function threadCpu(): number {
  try {
    return Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[0]) / 1e6;
  } catch {
    return NaN;
  }
}

function draws(): Float64Array[][] {
  const rng = new Rng(2026);
  return Array.from({ length: 4 }, () =>
    Array.from({ length: 30 }, (_, j) => {
      const x = new Float64Array(1000);
      let prev = 0;
      for (let i = 0; i < 1000; i++) {
        x[i] = prev = rng.uniform() < 0.2 ? prev : 0.3 * prev + 0.01 * rng.normal() + j / 30;
      }
      return x;
    }));
}

async function child(mode: string): Promise<void> {
  const mod = await import(`${root}diagnostics/summary.ts`);
  const d = draws();
  const names = Array.from({ length: 30 }, (_, j) => `x${j}`);
  if (mode === "prepared") {
    mod._prepareSummary?.(4, 1000); // absent before the change: then a plain first call
    await new Promise((r) => setTimeout(r, 100)); // the rest of the last chain
  }
  const c0 = threadCpu(), t0 = performance.now();
  const rows = mod.summarize(d, names) as Record<string, unknown>[];
  const first = { wall: performance.now() - t0, cpu: threadCpu() - c0 };
  const warm: number[] = [];
  for (let r = 0; r < 10; r++) {
    const t = performance.now();
    mod.summarize(d, names);
    warm.push(performance.now() - t);
  }
  const bits = new BigUint64Array(
    new Float64Array(
      rows.flatMap((row) => Object.values(row).filter((v): v is number => typeof v === "number")),
    ).buffer,
  );
  let sum = 0n;
  for (const b of bits) sum = (sum * 1000003n + b) & ((1n << 61n) - 1n);
  console.log(JSON.stringify({ ...first, warm: Math.min(...warm), checksum: sum.toString(16) }));
}

if (values.child !== undefined) {
  await child(values.child);
} else {
  const repeats = Number(values.repeats);
  for (const mode of ["cold", "prepared"]) {
    const runs: { wall: number; cpu: number; warm: number; checksum: string }[] = [];
    for (let r = 0; r < repeats; r++) {
      const args = ["run", "-A", new URL(import.meta.url).pathname, "--child", mode];
      if (values.root !== undefined) args.push("--root", values.root);
      const out = await new Deno.Command(Deno.execPath(), { args, stderr: "inherit" }).output();
      if (!out.success) throw new Error(`the ${mode} run failed`);
      runs.push(JSON.parse(new TextDecoder().decode(out.stdout)));
    }
    const med = (k: "wall" | "cpu" | "warm") =>
      runs.map((x) => x[k]).sort((a, b) => a - b)[runs.length >> 1].toFixed(1);
    console.log(
      `${mode.padEnd(8)} first call: wall ${med("wall")} ms, thread CPU ${med("cpu")} ms; ` +
        `warm ${med("warm")} ms (medians of ${repeats}); checksum ${
          [...new Set(runs.map((x) => x.checksum))].join(",")
        }`,
    );
  }
}
