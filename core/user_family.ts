/**
 * A GLM family written by the user as AssemblyScript, compiled at run time
 * with the `assemblyscript` compiler into a WebAssembly module that shares
 * the arena's memory, the data layout and the SIMD row primitives
 * (core/as/rows.ts) of the built-in kernels.
 *
 * ```
 *  user source ─┐   (defines, for one row, f64 → f64:
 *               │    logLik(eta, y), dLogLik(eta, y), d2LogLik(eta, y))
 *  template  ───┼─► asc (simd, runtime stub, --memoryBase = an arena block)
 *  rows.ts, ────┘        │
 *  vmath.ts              ▼
 *               instance importing the arena's env.memory:
 *                 llUser   Σℓᵢ, ∇ += Σℓ'xᵢ, per-row ℓ / ℓ' / ℓ''   (rows: list or range)
 *                 hessUser H += Σℓ''xᵢxᵢᵀ                           (rows [start, end))
 * ```
 *
 * Rows are taken two at a time: η for both rows from one SIMD dot product
 * (_dot2), the user's functions per lane, the gradient and Hessian updates by
 * the SIMD _axpy2 / _outer2. The module's static data (vmath's constant table)
 * lives in a block the arena owns, so it never overlaps the built-in core or
 * the data. Over a shared memory the module imports it as shared, and a
 * worker instantiates the same bytes over the same memory
 * ({@link UserFamilyKernels.attach}): its data segment rewrites the static
 * block with the bytes already there, so the block is never the worker's,
 * and the worker's scratch comes from its own region. A shard worker has a
 * memory of its own: there the module compiled over the first block of a
 * fresh arena is instantiated with the worker's fresh arena's first block
 * reserved at the same address ({@link UserFamilyKernels.atBlock}). The
 * user's source may use everything vmath.ts exports (vexp, vlog, … on f64x2)
 * and AssemblyScript's Math.
 *
 * References: docs/architecture.md, "The WASM core".
 *
 * @module
 */
import type { Arena } from "./arena.ts";
import type { StoredGlmData } from "./row_buffer.ts";
import { ScratchF64, ScratchI32 } from "./scratch.ts";
import { withSharedMemoryImport } from "./load.ts";
import { pointerOf } from "./_handles.ts";

const _STATIC_BYTES = 65536;

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

/**
 * An example user family: the built-in logistic family's formulas
 * (core/as/family.ts) written per row in scalar f64.
 */
export const EXAMPLE_LOGISTIC_SOURCE: string = `
function logLik(eta: f64, y: f64): f64 {
  const e = Math.exp(-Math.abs(eta));
  return (y * eta - Math.max(eta, 0.0)) - Math.log1p(e);
}
function dLogLik(eta: f64, y: f64): f64 {
  const e = Math.exp(-Math.abs(eta));
  const p = 1.0 / (1.0 + e);
  return y - (eta >= 0 ? p : e * p);
}
function d2LogLik(eta: f64, y: f64): f64 {
  const e = Math.exp(-Math.abs(eta));
  const p = 1.0 / (1.0 + e);
  return -(e * p * p);
}`;

interface _UserExports {
  heapBase(): number;
  llUser(
    x: number,
    y: number,
    d: number,
    start: number,
    idx: number,
    m: number,
    theta: number,
    grad: number,
    llOut: number,
    dOut: number,
    d2Out: number,
  ): number;
  hessUser(
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    theta: number,
    h: number,
  ): void;
}

async function _source(name: string): Promise<string> {
  const url = new URL(`./as/${name}`, import.meta.url);
  if (url.protocol === "file:") return await Deno.readTextFile(url);
  const r = await fetch(url);
  if (!r.ok) throw new Error(`cannot load ${url}: ${r.status}`);
  return await r.text();
}

/**
 * A user's family compiled into a wasm module over an arena's memory, with
 * typed operations on stored data (f64 X only).
 *
 * @example
 * ```ts ignore
 * import { loadCore } from "./load.ts";
 * import { compileUserFamily } from "./user_family.ts";
 * const arena = loadCore();
 * const fam = await compileUserFamily(arena, `
 *   function logLik(eta: f64, y: f64): f64 { return y * eta - Math.log1p(Math.exp(eta)); }
 *   function dLogLik(eta: f64, y: f64): f64 { return y - 1 / (1 + Math.exp(-eta)); }
 *   function d2LogLik(eta: f64, y: f64): f64 { const p = 1 / (1 + Math.exp(-eta)); return -p * (1 - p); }
 * `);
 * ```
 */
export class UserFamilyKernels {
  /** The arena whose memory the module imports. */
  readonly arena: Arena;
  /** The module's compiled bytes (for inspection and caching; a worker instantiates the same). */
  readonly bytes: Uint8Array;
  /**
   * Address of the module's static block (`--memoryBase`) in the memory.
   *
   * @internal
   */
  readonly staticBlock: number;
  readonly #ownsStatic: boolean;
  readonly #ex: _UserExports;
  readonly #static: number;
  readonly #theta = new Map<number, ScratchF64>();
  readonly #vec: ScratchF64;
  readonly #mat: ScratchF64;
  readonly #rows: ScratchF64;
  readonly #rows2: ScratchF64;
  readonly #rows3: ScratchF64;
  readonly #idx: ScratchI32;

  /** Use {@link compileUserFamily} (or {@link UserFamilyKernels.attach} in a worker). */
  constructor(arena: Arena, bytes: Uint8Array, staticBlock: number, ownsStatic = true) {
    this.arena = arena;
    this.bytes = bytes;
    this.#static = staticBlock;
    this.staticBlock = staticBlock;
    this.#ownsStatic = ownsStatic;
    const module = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
    const instance = new WebAssembly.Instance(module, {
      env: {
        memory: arena.memory,
        abort(_m: number, _f: number, line: number, column: number): never {
          throw new Error(`user family aborted at line ${line}, column ${column}`);
        },
      },
    });
    this.#ex = instance.exports as unknown as _UserExports;
    const top = (instance.exports.heapBase as () => number)() >>> 0;
    if (top > staticBlock + _STATIC_BYTES) {
      throw new RangeError(
        `the user family's static data end at ${top}, past its block [${staticBlock}, ${
          staticBlock + _STATIC_BYTES
        })`,
      );
    }
    this.#vec = new ScratchF64(arena);
    this.#mat = new ScratchF64(arena);
    this.#rows = new ScratchF64(arena);
    this.#rows2 = new ScratchF64(arena);
    this.#rows3 = new ScratchF64(arena);
    this.#idx = new ScratchI32(arena);
  }

  /**
   * The same compiled family in another thread: `bytes` and `staticBlock`
   * from the kernels compiled over a shared memory, `arena` a region of that
   * memory attached in this thread (core/shared_region.ts). Instantiating
   * writes the module's data segment into the static block again (the same
   * bytes); the scratch is allocated in `arena`; {@link dispose} frees the
   * scratch only, the static block stays the compiling arena's.
   *
   * @param arena An arena over the shared memory the family was compiled for.
   * @param bytes {@link UserFamilyKernels.bytes} of the compiled family.
   * @param staticBlock {@link UserFamilyKernels.staticBlock} of the compiled family.
   * @returns Kernels over `arena`.
   * @throws {RangeError} If `arena`'s memory is not shared.
   * @internal
   */
  static attach(arena: Arena, bytes: Uint8Array, staticBlock: number): UserFamilyKernels {
    if (!arena.shared) {
      throw new RangeError("UserFamilyKernels.attach needs an arena over a shared memory");
    }
    return new UserFamilyKernels(arena, bytes, staticBlock, false);
  }

  /**
   * The same compiled family in an arena of its own memory (a shard worker's,
   * models/_shard_worker.ts): the family was compiled over another arena
   * whose static block was that arena's first block (`staticBlock`), so this
   * arena reserves the same addresses by allocating its next block there.
   * Instantiating writes the module's data segment into that block; the block
   * is this arena's, and {@link dispose} frees it.
   *
   * @param arena An arena whose next block of 64 KiB is at `staticBlock`
   *   (a fresh one from `loadCore()`, before any other allocation), over an
   *   unshared memory.
   * @param bytes {@link UserFamilyKernels.bytes} of a family compiled over an unshared memory.
   * @param staticBlock {@link UserFamilyKernels.staticBlock} of that family.
   * @returns Kernels over `arena`.
   * @throws {RangeError} If `arena` is shared, or its next block is not at `staticBlock`.
   * @internal
   */
  static atBlock(arena: Arena, bytes: Uint8Array, staticBlock: number): UserFamilyKernels {
    if (arena.shared) {
      throw new RangeError(
        "UserFamilyKernels.atBlock needs an arena over an unshared memory (attach() shares one)",
      );
    }
    const block = arena.alloc(_STATIC_BYTES, 16);
    if (block !== staticBlock) {
      arena.free(block);
      throw new RangeError(
        `the user family was compiled for a static block at byte ${staticBlock}, but this ` +
          `arena's next block is at ${block}: reserve it first, in a fresh arena`,
      );
    }
    try {
      return new UserFamilyKernels(arena, bytes, staticBlock);
    } catch (e) {
      arena.free(block);
      throw e;
    }
  }

  /**
   * Σℓᵢ(θ) over all rows or the listed rows, with ∇ and per-row ℓᵢ, ℓ'ᵢ.
   *
   * @param data The data set (f64 X).
   * @param theta θ (length d).
   * @param options `rows`, `grad` (length d), per-row `perRow` (ℓᵢ), `derivative`
   *   (ℓ'(ηᵢ)), `secondDerivative` (ℓ''(ηᵢ)).
   * @returns The sum.
   */
  logLikelihood(
    data: StoredGlmData,
    theta: Float64Array,
    options: {
      rows?: Int32Array;
      grad?: Float64Array;
      perRow?: Float64Array;
      derivative?: Float64Array;
      secondDerivative?: Float64Array;
    } = {},
  ): number {
    const d = this.#check(data, theta), t = this.#writeTheta(theta);
    let idx = 0, m = data.numRows;
    if (options.rows !== undefined) {
      m = options.rows.length;
      for (let k = 0; k < m; k++) {
        const r = options.rows[k];
        if (!(r >= 0 && r < data.numRows)) {
          throw new RangeError(
            `row index ${r} at position ${k} is outside [0, ${data.numRows - 1}]`,
          );
        }
      }
      this.#idx.ensure(Math.max(1, m));
      this.#idx.view(0, m).set(options.rows);
      idx = pointerOf(this.#idx);
    }
    this.#vec.ensure(d);
    this.#vec.view(0, d).fill(0);
    if (options.perRow) this.#rows.ensure(Math.max(1, m));
    if (options.derivative) this.#rows2.ensure(Math.max(1, m));
    if (options.secondDerivative) this.#rows3.ensure(Math.max(1, m));
    const ll = this.#ex.llUser(
      data.x,
      data.y,
      d,
      0,
      idx,
      m,
      t,
      options.grad ? pointerOf(this.#vec) : 0,
      options.perRow ? pointerOf(this.#rows) : 0,
      options.derivative ? pointerOf(this.#rows2) : 0,
      options.secondDerivative ? pointerOf(this.#rows3) : 0,
    );
    if (options.grad) options.grad.set(this.#vec.view(0, d));
    if (options.perRow) options.perRow.set(this.#rows.view(0, m));
    if (options.derivative) options.derivative.set(this.#rows2.view(0, m));
    if (options.secondDerivative) options.secondDerivative.set(this.#rows3.view(0, m));
    return ll;
  }

  /**
   * Σℓ''(ηᵢ)xᵢxᵢᵀ over rows [start, end) into `out` (d × d, overwritten).
   *
   * @param data The data set (f64 X).
   * @param theta θ (length d).
   * @param options `out` and `range`.
   * @returns `out`.
   */
  hessian(
    data: StoredGlmData,
    theta: Float64Array,
    options: { out: Float64Array; range?: { start?: number; end?: number } },
  ): Float64Array {
    const d = this.#check(data, theta), t = this.#writeTheta(theta);
    const start = options.range?.start ?? 0, end = options.range?.end ?? data.numRows;
    if (
      !(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end &&
        end <= data.numRows)
    ) {
      throw new RangeError(`row range [${start}, ${end}) is not inside [0, ${data.numRows})`);
    }
    this.#mat.ensure(d * d);
    this.#mat.view(0, d * d).fill(0);
    this.#ex.hessUser(data.x, data.y, d, start, end, t, pointerOf(this.#mat));
    options.out.set(this.#mat.view(0, d * d));
    return options.out;
  }

  /** Release scratch and, unless attached in another thread, the static block. */
  dispose(): void {
    for (
      const s of [
        this.#vec,
        this.#mat,
        this.#rows,
        this.#rows2,
        this.#rows3,
        ...this.#theta.values(),
      ]
    ) {
      s.dispose();
    }
    this.#idx.dispose();
    if (this.#ownsStatic) this.arena.free(this.#static);
  }

  #check(data: StoredGlmData, theta: Float64Array): number {
    if (data.arena !== this.arena) throw new RangeError("the rows live in a different arena");
    if (data.storage !== "f64") throw new TypeError("user families read f64 X only, got f32");
    if (!(theta instanceof Float64Array) || theta.length !== data.numCols) {
      throw new RangeError(`theta must be a Float64Array of length ${data.numCols}`);
    }
    return data.numCols;
  }

  #writeTheta(theta: Float64Array): number {
    let s = this.#theta.get(theta.length);
    if (s === undefined) {
      this.#theta.set(theta.length, s = new ScratchF64(this.arena, theta.length));
    }
    s.view(0, theta.length).set(theta);
    return pointerOf(s);
  }
}

/**
 * Compile a user's per-row family (AssemblyScript defining `logLik`,
 * `dLogLik` and `d2LogLik`, each `(eta: f64, y: f64): f64`) into kernels over
 * `arena`'s memory.
 *
 * @param arena The arena holding the data.
 * @param source The user's AssemblyScript.
 * @returns The kernels.
 * @throws {SyntaxError} With the compiler's messages if the source does not compile.
 */
export async function compileUserFamily(arena: Arena, source: string): Promise<UserFamilyKernels> {
  for (const fn of ["logLik", "dLogLik", "d2LogLik"]) {
    if (!new RegExp(`function\\s+${fn}\\s*\\(`).test(source)) {
      throw new TypeError(`the user family must define function ${fn}(eta: f64, y: f64): f64`);
    }
  }
  const block = arena.alloc(_STATIC_BYTES, 16);
  let wasm: Uint8Array | undefined;
  try {
    wasm = await _compile(source, block);
  } catch (e) {
    arena.free(block);
    throw e;
  }
  try {
    // Over a shared memory the import is declared shared (the same code and data).
    // A copy either way: the kept module stays as compiled.
    const bytes = arena.shared
      ? withSharedMemoryImport(wasm as Uint8Array<ArrayBuffer>)
      : wasm.slice();
    return new UserFamilyKernels(arena, bytes, block);
  } catch (e) {
    arena.free(block);
    throw e;
  }
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

/** The module of `source` with its static block at `block` (unshared memory import). */
async function _compile(source: string, block: number): Promise<Uint8Array> {
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
    String(Math.ceil((block + _STATIC_BYTES) / 65536)),
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
