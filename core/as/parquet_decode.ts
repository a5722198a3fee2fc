// AssemblyScript: the byte-level parts of the Parquet page decoder (part of the tallmc core;
// entry file kernels.ts). data/parquet_decode.ts reads a row group's column chunks into the
// arena, walks their page headers and calls these on each page:
//
//   pqSnappy      snappy block src[0, srcLen) → dst[0, dstLen)
//   pqLevelsAll   RLE / bit-packed hybrid levels: are all n of them equal to `level`?
//   pqDictGather  RLE / bit-packed hybrid dictionary indices → n values dict[index] at dst
//
// Each returns 0 when the input is not exactly what a well-formed page holds (a length that
// does not match, a run past the input or past n values, an index outside the dictionary,
// an unknown width): the host then decodes that row group with its general decoder, which
// reports the file's fault in its own words. So these are strict: they accept a subset of
// what the general decoder accepts, never more.

/** The value of the last {@link varint} (a global: per instance, so per thread). */
let varintValue: u32 = 0;

/**
 * Reads a ULEB128 varint of at most 5 bytes at src[pos, end) into varintValue; returns the
 * position after it, or -1 if malformed.
 */
// @ts-ignore: decorator
@inline
function varint(src: usize, pos: i32, end: i32): i32 {
  let v: u64 = 0;
  let shift: u32 = 0;
  while (pos < end && shift < 35) {
    const b = <u64>load<u8>(src + <usize>pos);
    pos++;
    v |= (b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      if (v > 0xffffffff) return -1;
      varintValue = <u32>v;
      return pos;
    }
    shift += 7;
  }
  return -1;
}

/** Little-endian unsigned integer of `nb` (0–4) bytes at p. */
// @ts-ignore: decorator
@inline
function le(p: usize, nb: i32): u32 {
  let v: u32 = 0;
  for (let i = 0; i < nb; i++) v |= <u32>load<u8>(p + <usize>i) << (<u32>i << 3);
  return v;
}

/**
 * Decompresses the snappy block src[0, srcLen) into dst[0, dstLen). Returns 1 when the block
 * is well formed and its length preamble and its output are exactly dstLen bytes, else 0.
 */
export function pqSnappy(src: usize, srcLen: i32, dst: usize, dstLen: i32): i32 {
  let pos = varint(src, 0, srcLen);
  if (pos < 0 || varintValue != <u32>dstLen) return 0;
  let out: i32 = 0;
  while (pos < srcLen) {
    const tag = <u32>load<u8>(src + <usize>pos);
    pos++;
    const kind = tag & 3;
    if (kind == 0) {
      let len = <i64>(tag >> 2) + 1;
      if (len > 60) {
        const nb = <i32>len - 60;
        if (pos + nb > srcLen) return 0;
        len = <i64>le(src + <usize>pos, nb) + 1;
        pos += nb;
      }
      if (<i64>pos + len > <i64>srcLen || <i64>out + len > <i64>dstLen) return 0;
      memory.copy(dst + <usize>out, src + <usize>pos, <usize>len);
      pos += <i32>len;
      out += <i32>len;
      continue;
    }
    let len: i32, off: u32;
    if (kind == 1) {
      if (pos + 1 > srcLen) return 0;
      len = <i32>((tag >> 2) & 7) + 4;
      off = ((tag >> 5) << 8) | <u32>load<u8>(src + <usize>pos);
      pos += 1;
    } else if (kind == 2) {
      if (pos + 2 > srcLen) return 0;
      len = <i32>(tag >> 2) + 1;
      off = le(src + <usize>pos, 2);
      pos += 2;
    } else {
      if (pos + 4 > srcLen) return 0;
      len = <i32>(tag >> 2) + 1;
      off = le(src + <usize>pos, 4);
      pos += 4;
    }
    if (off == 0 || <i64>off > <i64>out || <i64>out + <i64>len > <i64>dstLen) return 0;
    // A back reference may overlap its own output (a repeated pattern): copy in steps of
    // at most `off` bytes, each from bytes already written.
    let left = len;
    while (left > 0) {
      const step = min<i32>(left, <i32>off);
      memory.copy(dst + <usize>out, dst + <usize>(out - <i32>off), <usize>step);
      out += step;
      left -= step;
    }
  }
  return out == dstLen ? 1 : 0;
}

/**
 * Walks the RLE / bit-packed hybrid encoding of n values of `bw` bits (1–16) in src[0, len),
 * calling back per run: mode 0 checks that every value equals `level`; mode 1 writes
 * dict[value] (w = 4 or 8 bytes) to dst, checking value < dictN. Returns 1 on success.
 */
// @ts-ignore: decorator
@inline
function hybrid(
  src: usize,
  len: i32,
  bw: i32,
  n: i32,
  mode: i32,
  level: u32,
  dict: usize,
  dictN: u32,
  w: i32,
  dst: usize,
): i32 {
  // Widths up to 16 bits (dictionaries of up to 65536 values); wider ones go to the host.
  if (bw < 1 || bw > 16 || n < 0) return 0;
  const mask: u64 = (<u64>1 << <u64>bw) - 1;
  const vb = (bw + 7) >> 3;
  let pos = 0;
  let seen = 0;
  while (seen < n) {
    pos = varint(src, pos, len);
    if (pos < 0) return 0;
    const header = varintValue;
    if ((header & 1) == 0) {
      // RLE run: one value, repeated.
      const count = <i32>(header >> 1);
      if (count > n - seen || pos + vb > len) return 0;
      const v = le(src + <usize>pos, vb);
      pos += vb;
      if (mode == 0) {
        if (count > 0 && v != level) return 0;
      } else {
        if (count > 0 && v >= dictN) return 0;
        const p = dst + (<usize>seen << (w == 8 ? 3 : 2));
        if (w == 8) {
          const x = load<u64>(dict + (<usize>v << 3));
          for (let i = 0; i < count; i++) store<u64>(p + (<usize>i << 3), x);
        } else {
          const x = load<u32>(dict + (<usize>v << 2));
          for (let i = 0; i < count; i++) store<u32>(p + (<usize>i << 2), x);
        }
      }
      seen += count;
    } else {
      // Bit-packed run: groups of 8 values, bw bytes a group; values past n are padding.
      const groups = <i64>(header >> 1);
      const bytes = groups * <i64>bw;
      if (<i64>pos + bytes > <i64>len) return 0;
      const total = <i32>min<i64>(groups * 8, <i64>(n - seen));
      let buf: u64 = 0;
      let bits: i32 = 0;
      let q = src + <usize>pos;
      for (let i = 0; i < total; i++) {
        while (bits < bw) {
          buf |= <u64>load<u8>(q) << <u64>bits;
          q++;
          bits += 8;
        }
        const v = <u32>(buf & mask);
        buf >>= <u64>bw;
        bits -= bw;
        if (mode == 0) {
          if (v != level) return 0;
        } else {
          if (v >= dictN) return 0;
          if (w == 8) {
            store<u64>(dst + (<usize>(seen + i) << 3), load<u64>(dict + (<usize>v << 3)));
          } else {
            store<u32>(dst + (<usize>(seen + i) << 2), load<u32>(dict + (<usize>v << 2)));
          }
        }
      }
      pos += <i32>bytes;
      seen += total;
    }
  }
  return 1;
}

/**
 * 1 when the hybrid-encoded levels in src[0, len) (n values of bw bits) are all `level`
 * (a flat column's page without nulls), else 0.
 */
export function pqLevelsAll(src: usize, len: i32, bw: i32, n: i32, level: i32): i32 {
  return hybrid(src, len, bw, n, 0, <u32>level, 0, 0, 4, 0);
}

/**
 * Decodes n hybrid-encoded dictionary indices of bw bits from src[0, len) and writes
 * dict[index] (w = 4 or 8 bytes a value; dictN values) to dst[0, n·w). 1 on success, 0 when
 * the input is malformed or an index is ≥ dictN.
 */
export function pqDictGather(
  src: usize,
  len: i32,
  bw: i32,
  n: i32,
  dict: usize,
  dictN: i32,
  w: i32,
  dst: usize,
): i32 {
  if (w != 4 && w != 8) return 0;
  return hybrid(src, len, bw, n, 1, 0, dict, <u32>dictN, w, dst);
}
