/**
 * core/huge_pages.ts: with the `ffi` permission on Linux the core's memory
 * is advised for transparent huge pages (the kernel marks its mapping `hg`
 * in /proc/self/smaps); without the permission, or with
 * `TALLMC_HUGE_PAGES=0`, nothing is advised and nothing prompts. The advice
 * changes no value: a memory written after it reads back the same.
 */
import assert from "node:assert/strict";

const linux = Deno.build.os === "linux";

/**
 * The script the tests run in a fresh process (reading /proc/self/smaps
 * needs every permission, and a permission cannot be taken back in-process):
 * it advises a memory of each kind, writes and reads it back, and prints
 * whether the advice was given and whether the kernel marked the mapping.
 */
const SCRIPT = `import { adviseHugePages } from ${
  JSON.stringify(new URL("../../core/huge_pages.ts", import.meta.url).href)
};
import { loadCore } from ${JSON.stringify(new URL("../../mod.ts", import.meta.url).href)};

function vmFlagsAt(address) {
  let inside = false;
  for (const line of Deno.readTextFileSync("/proc/self/smaps").split("\\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (m !== null) inside = BigInt("0x" + m[1]) <= address && address < BigInt("0x" + m[2]);
    else if (inside && line.startsWith("VmFlags:")) return line.slice(8).trim().split(/\\s+/);
  }
  return [];
}
const inspect = Deno.permissions.querySync({ name: "ffi" }).state === "granted";
const marked = (memory, offset = 0) => !inspect ? null : vmFlagsAt(
  BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(new Uint8Array(memory.buffer)))) +
    BigInt(offset),
).includes("hg");
const out = {};
try {
  Deno.statSync("/sys/kernel/mm/transparent_hugepage/enabled");
  out.thp = true;
} catch {
  out.thp = false; // no THP in this kernel (or no permission to see it)
}
for (const shared of [false, true]) {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared });
  const before = marked(memory);
  const advised = adviseHugePages(memory);
  memory.grow(64); // the advice holds for the pages the memory grows into
  const bytes = new Uint8Array(memory.buffer);
  let same = true;
  for (let i = 0; i < bytes.length; i += 4093) bytes[i] = i % 251;
  for (let i = 0; i < bytes.length; i += 4093) same &&= bytes[i] === i % 251;
  out[shared ? "shared" : "plain"] = { before, advised, after: marked(memory, bytes.length - 1), same };
}
out.arena = marked(loadCore({ backend: "relaxed-simd", initialBytes: 1 << 22 }).memory);
console.log(JSON.stringify(out));
`;

/** Per memory: marked before and after the advice (null: not inspectable without ffi). */
interface Kind {
  before: boolean | null;
  advised: boolean;
  after: boolean | null;
  same: boolean;
}

interface Outcome {
  /** This kernel has transparent huge pages (seen with every permission). */
  thp: boolean;
  plain: Kind;
  shared: Kind;
  arena: boolean | null;
}

async function runWith(flags: string[], env: Record<string, string> = {}): Promise<Outcome> {
  const file = await Deno.makeTempFile({ dir: "/tmp", suffix: ".mjs" });
  try {
    await Deno.writeTextFile(file, SCRIPT);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", ...flags, file],
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    await Deno.remove(file);
  }
}

Deno.test({
  name: "huge pages: with --allow-ffi the memories and the arena are marked, values unchanged",
  ignore: !linux,
  async fn() {
    const o = await runWith(["--allow-all"]);
    if (!o.thp) return; // madvise refuses the advice: nothing to see
    for (const kind of [o.plain, o.shared]) {
      assert.deepEqual(kind, { before: false, advised: true, after: true, same: true });
    }
    assert.equal(o.arena, true);
  },
});

Deno.test({
  name: "huge pages: nothing is advised without --allow-ffi or with TALLMC_HUGE_PAGES=0",
  ignore: !linux,
  async fn() {
    // Without the permission nothing prompts (--no-prompt would fail the run).
    const without = await runWith(["--allow-read", "--allow-env"]);
    for (const kind of [without.plain, without.shared]) {
      assert.deepEqual(kind, { before: null, advised: false, after: null, same: true });
    }
    assert.equal(without.arena, null);
    const off = await runWith(["--allow-all"], { TALLMC_HUGE_PAGES: "0" });
    if (!off.thp) return;
    for (const kind of [off.plain, off.shared]) {
      assert.deepEqual(kind, { before: false, advised: false, after: false, same: true });
    }
    assert.equal(off.arena, false);
  },
});
