/**
 * Transparent huge pages for the core's WebAssembly memory.
 *
 * A memory of a tall data set is touched page by page the first time it is
 * written: 10⁷ rows × 31 columns in f32 are 1.24 GB, about 300,000 pages of
 * 4 KiB, and each first touch is a page fault that zeroes its page. Where the
 * kernel's page faults are expensive (a virtual machine with shadow page
 * tables: 10 μs a fault, measured in docs/huge_pages.md) those faults are most
 * of a read's time. With transparent huge pages each fault maps 2 MiB at once:
 * 512 times fewer faults.
 *
 * Linux hands a process huge pages for anonymous memory when its setting
 * `/sys/kernel/mm/transparent_hugepage/enabled` is `always`, or is `madvise`
 * (the usual default) and the process asked with `madvise(MADV_HUGEPAGE)` for
 * the range. WebAssembly has no such call, so {@link adviseHugePages} makes it
 * through Deno's foreign function interface, on the range the engine reserved
 * for the memory. It runs only when everything it needs is there — Deno on
 * Linux, the `ffi` permission already granted (it never prompts), libc
 * loadable — and the environment variable `TALLMC_HUGE_PAGES` is not `0`
 * (read only when the `env` permission for it is granted). Anywhere else it
 * does nothing: the memory behaves the same, only its first touch costs more.
 *
 * The advice changes no value in the memory, only how the kernel backs it.
 *
 * @module
 */

/** `MADV_HUGEPAGE` from Linux's `<asm-generic/mman-common.h>`. */
const MADV_HUGEPAGE = 14;
/** A wasm32 memory's largest size: the range advised. */
const WASM32_BYTES = 2 ** 32;

type Madvise = (address: Deno.PointerValue, length: bigint, advice: number) => number;

/** The libc call, null when unavailable here, undefined before the first try. */
let _madvise: Madvise | null | undefined;

function granted(deno: typeof Deno, descriptor: Deno.PermissionDescriptor): boolean {
  return deno.permissions?.querySync?.(descriptor).state === "granted";
}

function madviseCall(): Madvise | null {
  if (_madvise !== undefined) return _madvise;
  _madvise = null;
  try {
    const deno = (globalThis as { Deno?: typeof Deno }).Deno;
    if (deno?.build?.os !== "linux" || typeof deno.dlopen !== "function") return null;
    if (!granted(deno, { name: "ffi" })) return null;
    const variable = "TALLMC_HUGE_PAGES";
    if (granted(deno, { name: "env", variable }) && deno.env.get(variable) === "0") return null;
    const lib = deno.dlopen("libc.so.6", {
      madvise: { parameters: ["pointer", "usize", "i32"], result: "i32" },
    });
    _madvise = lib.symbols.madvise as Madvise;
  } catch {
    _madvise = null;
  }
  return _madvise;
}

/**
 * Ask Linux to back `memory` with transparent huge pages (see the module's
 * documentation for when this is possible). Call it when the memory is made,
 * before its pages are touched: pages faulted in before keep their size. The
 * advice covers the memory's whole 4 GiB range, so it holds as the memory
 * grows.
 *
 * @param memory A WebAssembly memory (shared or not).
 * @returns Whether the kernel took the advice.
 *
 * @example
 * ```ts
 * import { adviseHugePages } from "./huge_pages.ts";
 * const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 });
 * const advised = adviseHugePages(memory); // false without --allow-ffi
 * console.log(typeof advised);
 * ```
 */
export function adviseHugePages(memory: WebAssembly.Memory): boolean {
  const madvise = madviseCall();
  if (madvise === null) return false;
  try {
    const deno = (globalThis as { Deno: typeof Deno }).Deno;
    const base = deno.UnsafePointer.of(
      new Uint8Array(memory.buffer) as unknown as Uint8Array<ArrayBuffer>,
    );
    if (base === null) return false;
    // The mapped part first: its result says whether this kernel takes the
    // advice (no THP support: EINVAL). Then the whole 4 GiB range, for the
    // pages the memory grows into; the parts the engine has not mapped give
    // ENOMEM, and the advice still applies to the mapped ones.
    const mapped = Math.max(memory.buffer.byteLength, 65536);
    if (madvise(base, BigInt(mapped), MADV_HUGEPAGE) !== 0) return false;
    madvise(base, BigInt(WASM32_BYTES), MADV_HUGEPAGE);
    return true;
  } catch {
    return false;
  }
}
