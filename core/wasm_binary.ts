/**
 * Edits and reads of WebAssembly binaries, byte by byte: a memory import
 * declared shared, and custom sections read and appended (the section in
 * which the `dist/wasm/` files name their build). LEB128 as in the
 * WebAssembly specification, "Binary Format".
 *
 * @module
 */

function _readLeb(bytes: Uint8Array, pos: number): [value: number, next: number] {
  let value = 0, shift = 0, b: number;
  do {
    b = bytes[pos++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  return [value, pos];
}

/**
 * Copy of a module's `bytes` whose imported `env.memory` is declared shared
 * (limits flag 0x01 → 0x03; the import must declare a maximum), so that it
 * can be instantiated over a shared memory: the core's builds (core/load.ts),
 * and a user family compiled at run time (core/user_family.ts).
 *
 * @param bytes A wasm module importing its memory with a maximum.
 * @returns The patched copy; the code and data are the same bytes.
 * @throws {TypeError} If the module imports no memory or one without a maximum.
 * @internal
 */
export function withSharedMemoryImport(bytes: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const out = bytes.slice();
  let pos = 8; // magic + version
  while (pos < out.length) {
    const id = out[pos++];
    const [size, body] = _readLeb(out, pos);
    if (id === 2) {
      let [count, p] = _readLeb(out, body);
      for (; count > 0; count--) {
        for (let s = 0; s < 2; s++) { // module name, field name
          const [len, q] = _readLeb(out, p);
          p = q + len;
        }
        const kind = out[p++];
        if (kind === 0x02) {
          if (out[p] !== 0x01) {
            throw new TypeError(
              `shared memory needs a memory import with a maximum (flags 0x01), got 0x${
                out[p].toString(16)
              }`,
            );
          }
          out[p] = 0x03;
          return out;
        }
        if (kind === 0x00) p = _readLeb(out, p)[1]; // function: type index
        else if (kind === 0x01) { // table: reftype + limits
          p++;
          const flags = out[p++];
          p = _readLeb(out, p)[1];
          if (flags & 1) p = _readLeb(out, p)[1];
        } else if (kind === 0x03) p += 2; // global: valtype + mut
        else throw new TypeError(`unknown wasm import kind ${kind}`);
      }
    }
    pos = body + size;
  }
  throw new TypeError("the core wasm module does not import its memory");
}

/**
 * The text of the first custom section named `name`, or null without one.
 *
 * @param bytes A wasm module's bytes.
 * @param name The section's name.
 * @returns Its contents as UTF-8 text.
 * @internal
 */
export function customSectionText(bytes: Uint8Array, name: string): string | null {
  let pos = 8;
  while (pos < bytes.length) {
    const id = bytes[pos++];
    const [size, body] = _readLeb(bytes, pos);
    if (id === 0) {
      const [len, p] = _readLeb(bytes, body);
      if (new TextDecoder().decode(bytes.subarray(p, p + len)) === name) {
        return new TextDecoder().decode(bytes.subarray(p + len, body + size));
      }
    }
    pos = body + size;
  }
  return null;
}

/**
 * A copy of a module's bytes with a custom section `name` holding `value`
 * (UTF-8) appended.
 *
 * @param bytes A wasm module's bytes.
 * @param name The section's name.
 * @param value Its contents.
 * @returns The longer copy.
 * @internal
 */
export function appendCustomSection(
  bytes: Uint8Array,
  name: string,
  value: string,
): Uint8Array<ArrayBuffer> {
  const nameBytes = new TextEncoder().encode(name);
  const valueBytes = new TextEncoder().encode(value);
  const payload = [..._leb(nameBytes.length), ...nameBytes, ...valueBytes];
  const out = new Uint8Array(bytes.length + 1 + _leb(payload.length).length + payload.length);
  out.set(bytes);
  out.set([0, ..._leb(payload.length), ...payload], bytes.length);
  return out;
}

function _leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}
