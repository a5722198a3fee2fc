/**
 * Compiling a GLM family written by the user in AssemblyScript
 * (core/user_family.ts): the module template around the user's per-row
 * functions, the `assemblyscript` compiler (loaded on first use, so
 * importing this module costs nothing) with the static data at an address
 * the arena chose, and the last few compiled modules kept by source and
 * address.
 *
 * References: docs/architecture.md, "The WASM core".
 *
 * @module
 */

/**
 * Bytes of the block a compiled user family's static data (vmath's constant
 * table) lives in.
 *
 * @internal
 */
export const USER_STATIC_BYTES = 65536;

/** The AssemblyScript compiler's module (loaded on first use). */
const _ASC = "npm:assemblyscript@0.28.20/asc";

/** The part of the compiler's API this module calls. */
interface _Asc {
  main(
    argv: string[],
    options: {
      readFile(name: string): string | null;
      writeFile(name: string, contents: Uint8Array | string): void;
      listFiles(): string[];
    },
  ): Promise<{ error: Error | null; stderr: { toString(): string } }>;
}

/**
 * The module a user family is compiled into: the user's source between the
 * row loops `llUser` and `hessUser` (core/as/rows.ts's SIMD primitives).
 */
const _TEMPLATE = `
import { _axpy2, _dot2, _mirrorPost, _mirrorPre, _outer2, _row } from "./rows";
import { ZERO } from "./vmath";
export { ZERO };

/** First free byte above the module's static data (checked against its block). */
export function heapBase(): usize {
  return __heap_base;
}

// ─── user source ───
__USER__
// ─── end of user source ───

/** Σℓᵢ over m rows (idx list or start … start + m − 1); grad += Σℓ'xᵢ; per-row outputs. */
export function llUser(x: usize, y: usize, d: i32, start: i32, idx: usize, m: i32,
    theta: usize, grad: usize, llOut: usize, dOut: usize, d2Out: usize): f64 {
  const rowBytes = <usize>d << 3;
  let sum = 0.0;
  for (let k = 0; k < m; k += 2) {
    const single = k + 1 == m;
    const r0 = _row(idx, start, k);
    const r1 = single ? r0 : _row(idx, start, k + 1);
    const p0 = x + <usize>r0 * rowBytes, p1 = x + <usize>r1 * rowBytes;
    const eta = _dot2<f64>(p0, p1, theta, d);
    const e0 = f64x2.extract_lane(eta, 0), e1 = f64x2.extract_lane(eta, 1);
    const y0 = load<f64>(y + (<usize>r0 << 3)), y1 = load<f64>(y + (<usize>r1 << 3));
    const l0 = logLik(e0, y0), g0 = dLogLik(e0, y0);
    let l1 = 0.0, g1 = 0.0;
    if (!single) {
      l1 = logLik(e1, y1);
      g1 = dLogLik(e1, y1);
    }
    sum += l0 + l1;
    if (grad != 0) _axpy2<f64>(grad, p0, p1, f64x2.replace_lane(f64x2.splat(g0), 1, g1), d);
    const o = <usize>k << 3;
    if (llOut != 0) {
      store<f64>(llOut + o, l0);
      if (!single) store<f64>(llOut + o, l1, 8);
    }
    if (dOut != 0) {
      store<f64>(dOut + o, g0);
      if (!single) store<f64>(dOut + o, g1, 8);
    }
    if (d2Out != 0) {
      store<f64>(d2Out + o, d2LogLik(e0, y0));
      if (!single) store<f64>(d2Out + o, d2LogLik(e1, y1), 8);
    }
  }
  return sum;
}

/** hess += Σℓ''(ηᵢ)xᵢxᵢᵀ over rows [start, end) (full d × d). */
export function hessUser(x: usize, y: usize, d: i32, start: i32, end: i32, theta: usize,
    h: usize): void {
  if (end <= start) return;
  const rowBytes = <usize>d << 3;
  _mirrorPre(h, d);
  for (let i = start; i < end; i += 2) {
    const single = i + 1 == end;
    const r1 = single ? i : i + 1;
    const p0 = x + <usize>i * rowBytes, p1 = x + <usize>r1 * rowBytes;
    const eta = _dot2<f64>(p0, p1, theta, d);
    const w0 = d2LogLik(f64x2.extract_lane(eta, 0), load<f64>(y + (<usize>i << 3)));
    const w1 = single ? 0.0 : d2LogLik(f64x2.extract_lane(eta, 1), load<f64>(y + (<usize>r1 << 3)));
    _outer2<f64>(h, p0, p1, f64x2.replace_lane(f64x2.splat(w0), 1, w1), d);
  }
  _mirrorPost(h, d);
}
`;

async function _source(name: string): Promise<string> {
  const url = new URL(`./as/${name}`, import.meta.url);
  if (url.protocol === "file:") return await Deno.readTextFile(url);
  const r = await fetch(url);
  if (!r.ok) throw new Error(`cannot load ${url}: ${r.status}`);
  return await r.text();
}

/** The template's line (1-based) where the user's source begins. */
const _USER_LINE = _TEMPLATE.slice(0, _TEMPLATE.indexOf("__USER__")).split("\n").length;

/**
 * The compiler's diagnostics with their places in the user's source: each
 * `in user_family.ts(L,C)` of the module compiled (the template around the
 * source) becomes `family source:L':C`, L' the line of the source, and the
 * excerpts' line numbers likewise; `summary` has one `family source:L':C:
 * CODE: message` per error, on one line.
 *
 * @param stderr The compiler's standard error.
 * @param source The user's source.
 * @returns The summary and the text with the places mapped.
 */
function _compileDiagnostics(
  stderr: string,
  source: string,
): { summary: string; text: string } {
  // deno-lint-ignore no-control-regex
  const plain = stderr.replace(/\x1b\[[0-9;]*m/g, "");
  const lines = source.split("\n").length;
  const place = (l: number) => {
    const u = l - _USER_LINE + 1;
    return u >= 1 && u <= lines ? `family source:${u}` : `the family's template:${l}`;
  };
  const text = plain
    .replace(/in user_family\.ts\((\d+),(\d+)\)/g, (_m, l, c) => `in ${place(Number(l))}:${c}`)
    .replace(/^(\s*)(\d+)(\s*│)/gm, (m, a, l, b) => {
      const u = Number(l) - _USER_LINE + 1;
      return u >= 1 && u <= lines ? `${a}${String(u).padStart(l.length)}${b}` : m;
    });
  const summary: string[] = [];
  for (const block of text.split(/^(?=ERROR )/m)) {
    const head = /^ERROR (\w+): ?(.*)$/m.exec(block);
    if (head === null) continue;
    const at = /in (family source:\d+:\d+|the family's template:\d+:\d+)/.exec(block);
    summary.push(`${at === null ? "" : `${at[1]}: `}${head[1]}: ${head[2].trim()}`);
  }
  return { summary: summary.join("; "), text };
}

/**
 * Compiled modules by static block and source (the last few): a family
 * compiled again at the same address, as every sharded model's is (the first
 * block of a fresh arena), reuses the bytes instead of running the compiler
 * (seconds) again.
 */
const _compiled = new Map<string, Uint8Array>();
const _COMPILED_KEPT = 8;

/**
 * The module of `source` with its static block at `block` (unshared memory
 * import): compiled by the AssemblyScript compiler, loaded on first use, or
 * the bytes kept from an earlier compilation of the same source at the same
 * address.
 *
 * @param source The user's AssemblyScript (defines `logLik`, `dLogLik`, `d2LogLik`).
 * @param block Address of the module's static block of {@link USER_STATIC_BYTES} bytes.
 * @returns The module's bytes (shared with the cache: copy before changing them).
 * @throws {SyntaxError} With the compiler's messages if the source does not compile.
 * @internal
 */
export async function compileUserModule(source: string, block: number): Promise<Uint8Array> {
  const key = `${block}\n${source}`;
  const kept = _compiled.get(key);
  if (kept !== undefined) return kept;
  const files = new Map<string, string>([
    ["user_family.ts", _TEMPLATE.replace("__USER__", source)],
    ["rows.ts", await _source("rows.ts")],
    ["vmath.ts", await _source("vmath.ts")],
  ]);
  // The compiler loads on first use only: importing this module costs nothing.
  // Its specifier is a variable so that type-checking a program that imports
  // this module (through mod.ts, which can run a user family on threads) does
  // not pull the compiler's own declarations into that program.
  const { default: asc } = (await import(_ASC)) as { default: _Asc };
  let wasm: Uint8Array | undefined;
  const { error, stderr } = await asc.main([
    "user_family.ts",
    "--outFile",
    "user_family.wasm",
    "--optimizeLevel",
    "3",
    "--runtime",
    "stub",
    "--noAssert",
    "--importMemory",
    "--initialMemory",
    String(Math.ceil((block + USER_STATIC_BYTES) / 65536)),
    "--maximumMemory",
    "65536",
    "--memoryBase",
    String(block),
    "--enable",
    "simd",
    "--disableWarning",
    "112",
  ], {
    readFile: (name: string) => files.get(name.replace(/^.*\//, "")) ?? null,
    writeFile(name: string, contents: Uint8Array | string) {
      if (name.endsWith(".wasm") && typeof contents !== "string") wasm = contents;
    },
    listFiles: () => [],
  });
  if (error || wasm === undefined) {
    const where = _compileDiagnostics(String(stderr), source);
    throw new SyntaxError(
      `the user family does not compile: ${
        where.summary || (error?.message ?? "no output")
      }\n${where.text}`,
    );
  }
  if (_compiled.size >= _COMPILED_KEPT) _compiled.delete(_compiled.keys().next().value as string);
  _compiled.set(key, wasm);
  return wasm;
}
