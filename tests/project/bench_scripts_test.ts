/**
 * The time-to-posterior bench's command line (bench/time_to_posterior.ts)
 * and its memory floor (bench/_touch_memory.ts): the touch prints what it
 * touched and how long it took, bad arguments get a message naming the flag
 * and the value, and `--help` prints the usage — none of it makes a data file
 * or runs the CLI. The idle's count of the memory the guest reported to the
 * host (bench/_host_memory.ts) is the count's difference in MB, and null
 * where there is no count to read.
 */
import assert from "node:assert/strict";
import { reportedKib, settle } from "../../bench/_host_memory.ts";

const _ROOT = new URL("../../", import.meta.url).pathname;

async function _run(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: _ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: r.code, stdout: dec.decode(r.stdout), stderr: dec.decode(r.stderr) };
}

Deno.test("bench/_touch_memory.ts touches the MB asked for and says how long it took", async () => {
  const r = await _run(["run", "--allow-ffi", "bench/_touch_memory.ts", "8"]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.mb, 8);
  assert.ok(out.seconds > 0 && out.seconds < 60, `seconds: ${out.seconds}`);
  assert.equal(typeof out.hugePages, "boolean");
  for (const bad of ["0", "abc", "4096", "1.5"]) {
    const b = await _run(["run", "bench/_touch_memory.ts", bad]);
    assert.equal(b.code, 2, bad);
    assert.match(b.stderr, new RegExp(`MB must be an integer .* got ${bad.replace(".", "\\.")}`));
  }
});

Deno.test("bench/time_to_posterior.ts: --help and bad flags exit before any file is made", async () => {
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "tallmc_ttp_flags_" });
  try {
    const help = await _run(["run", "-A", "bench/time_to_posterior.ts", "--help"]);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /--host-memory both\|cold\|backed\|as-found/);
    const cases: [string[], RegExp][] = [
      [
        ["--host-memory", "warm"],
        /--host-memory: expected both, cold, backed or as-found, got warm/,
      ],
      [["--settle=-1"], /--settle: expected seconds in 0…600, got -1/],
      [["--repeats", "0"], /--repeats: expected a whole number ≥ 1, got 0/],
      [["--n", "10"], /--n: bad size in 10/],
      [["--formats", "xlsx"], /--formats: expected parquet, csv, csv17 and\/or rows, got xlsx/],
      [["--bogus"], /Unknown option '--bogus'/],
    ];
    for (const [flags, message] of cases) {
      const r = await _run(["run", "-A", "bench/time_to_posterior.ts", "--dir", dir, ...flags]);
      assert.equal(r.code, 2, flags.join(" "));
      assert.match(r.stderr, message, flags.join(" "));
      assert.match(r.stderr, /^Usage: /m, "the usage follows");
      assert.doesNotMatch(r.stderr, /\bat .*time_to_posterior\.ts:\d+/, "no stack trace");
    }
    assert.deepEqual([...Deno.readDirSync(dir)], [], "no file made");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bench/_host_memory.ts: the MB reported in an idle, or null without a count", async () => {
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "tallmc_reported_" });
  try {
    const count = `${dir}/reported_kib`;
    assert.equal(reportedKib(count), null); // no such file
    assert.equal(await settle(0, count), null);
    for (const bad of ["", "abc", "-4", "NaN"]) {
      await Deno.writeTextFile(count, `${bad}\n`);
      assert.equal(reportedKib(count), null, JSON.stringify(bad));
    }
    await Deno.writeTextFile(count, "303102812\n");
    assert.equal(reportedKib(count), 303102812);
    // The count grows by 5 MiB during the idle.
    const grow = setTimeout(() => Deno.writeTextFileSync(count, `${303102812 + 5 * 1024}\n`), 10);
    try {
      assert.equal(await settle(0.2, count), 5);
    } finally {
      clearTimeout(grow);
    }
    // Nothing reported: 0, not null.
    assert.equal(await settle(0, count), 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
