// AssemblyScript: numeric CSV rows → f64 (part of the tallmc core; entry file kernels.ts).
//
//   src ─► bytes of whole lines ("\n" or "\r\n"), one byte past `end` readable
//   colMap ─► numFields i32: ≥ 0 the column of X, -1 skipped (any text), -2 the response
//   x ─► rows × numCols f64 (column 0 = 1 when `intercept`), y ─► rows f64
//   hard ─► i32 triples (dest, offset from src, length) of cells left to the host
//   state ─► i32 [bytes consumed, status, hard cells, lines consumed]
//
// A cell is read when it is a plain decimal: [+-]? digits [. digits] [eE [+-]? digits] (or
// with the point first), nothing around it. Up to 19 significant digits are exact in a u64
// w; the value w·10^q is then
//   - w ≤ 2^53, |q| ≤ 22: one f64 multiplication or division of exact operands (Clinger);
//   - otherwise: w normalised times the 128-bit significand of 5^q (csv_pow5.ts), rounded
//     to 53 bits as in Lemire's "Number parsing at a gigabyte per second" (2021);
//   - digits beyond the 19th: the same for w and w + 1, kept when both agree.
// Whatever that does not settle (the round-to-even cases the product cannot decide,
// subnormals, exponents outside [-342, 308]) is a hard cell: the host reads its text with
// the correctly rounded Number(). Anything else unusual — a quote, a blank around a number,
// an empty or non-numeric cell, a wrong field count, a bare "\r", |x| > 1e100, a response
// outside the family's domain, a value f32 cannot hold when `f32check` — stops the kernel
// with status BAIL; the host then reads the whole input with its own parser, which names the
// problem. Skipped fields are scanned 16 bytes at a time (v128 compares).
//
// Lines whose every field is a short decimal ([-]digits[.digits], at most 15 bytes, no
// exponent: an f32 column written shortest, standardised covariates, 0/1 responses) are
// read first by csvFastRows, a loop with no branch on a field's shape (one v128 load per
// field, masks, one swizzle, i16 multiply-adds, one exact division); the first line it does
// not read goes to the general loop below (docs/csv_number_parser.md).

import { POW5, POW5_MAX_Q, POW5_MIN_Q } from "./csv_pow5";

/** Status: every complete line up to `end` was read. */
const DONE: i32 = 0;
/** Status: `maxRows` rows were written. */
const FULL: i32 = 1;
/** Status: the hard-cell list is full. */
const HARD_FULL: i32 = 2;
/** Status: something the kernel does not read; the host falls back. */
const BAIL: i32 = 3;

const EXTREME_ABS: f64 = 1e100;
const F32_MAX: f64 = 3.4028234663852886e38;
const F32_MIN_NORMAL: f64 = 1.1754943508222875e-38;

// Exact powers of ten 10^0 … 10^22.
const POW10: StaticArray<f64> = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

// Results of the number reader (module globals: AssemblyScript returns one value).
let _val: f64 = 0;
let _end: usize = 0;
let _mulHi: u64 = 0;

/** Low 64 bits of a·b; the high 64 in _mulHi. */
// @ts-ignore: decorator
@inline
function mul128(a: u64, b: u64): u64 {
  const aLo = a & 0xffffffff, aHi = a >> 32, bLo = b & 0xffffffff, bHi = b >> 32;
  const p0 = aLo * bLo, p1 = aLo * bHi, p2 = aHi * bLo, p3 = aHi * bHi;
  const mid = (p0 >> 32) + (p1 & 0xffffffff) + (p2 & 0xffffffff);
  _mulHi = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
  return a * b;
}

/**
 * w·10^q for w ≠ 0 correctly rounded to f64, or -1 (as a flag: the result is never negative)
 * when the 128-bit product cannot decide it or it is subnormal, zero or infinite.
 */
function eiselLemire(w: u64, q: i32): f64 {
  if (q < POW5_MIN_Q || q > POW5_MAX_Q) return -1;
  const lz = <i32>clz(w);
  w <<= <u64>lz;
  const idx = (q - POW5_MIN_Q) << 1;
  let lo = mul128(w, unchecked(POW5[idx]));
  let hi = _mulHi;
  if ((hi & 0x1ff) == 0x1ff) {
    mul128(w, unchecked(POW5[idx + 1]));
    const hi2 = _mulHi;
    const sum = lo + hi2;
    if (sum < lo) hi++;
    lo = sum;
    if ((hi & 0x1ff) == 0x1ff && lo == 0xffffffffffffffff) return -1;
  }
  const upper = <i32>(hi >> 63);
  const shift = <u64>(upper + 9);
  let mant = hi >> shift;
  let exp2 = ((217706 * q) >> 16) + 63 + upper - lz + 1023;
  if (exp2 <= 0) return -1; // subnormal or zero: left to the host
  if (lo <= 1 && q >= -4 && q <= 23 && (mant & 3) == 1) {
    // Possibly exactly halfway: round to even when the discarded bits are all zero.
    if ((mant << shift) == hi) mant &= ~(<u64>1);
  }
  mant += mant & 1;
  mant >>= 1;
  if (mant >= (<u64>2 << 52)) {
    mant = <u64>1 << 52;
    exp2++;
  }
  if (exp2 >= 0x7ff) return -1;
  return reinterpret<f64>((mant & ((<u64>1 << 52) - 1)) | (<u64>exp2 << 52));
}

// 10^0 … 10^15 as integers.
const POW10_U64: StaticArray<u64> = [
  1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000, 10000000000,
  100000000000, 1000000000000, 10000000000000, 100000000000000, 1000000000000000,
];

/** The value of the n ≤ 8 decimal digits at p (bytes beyond them are ignored). */
// @ts-ignore: decorator
@inline
function digits8(p: usize, n: i32): u64 {
  if (n == 0) return 0;
  // Little endian: the first digit is the lowest byte. Shift the n digits to the top so
  // that the bytes below them are zeros, then combine pairs, quads and octets.
  let v = (load<u64>(p) - 0x3030303030303030) << (<u64>(8 - n) << 3);
  v = v * 10 + (v >> 8);
  v = (((v & 0x000000ff000000ff) * (100 + (<u64>1000000 << 32))) +
    (((v >> 16) & 0x000000ff000000ff) * (1 + (<u64>10000 << 32)))) >> 32;
  return v;
}

/** The value w·10^q (w ≠ 0, no digits dropped) with its sign, as readNumber returns it. */
// @ts-ignore: decorator
@inline
function finish(w: u64, q: i32, neg: bool): i32 {
  let v: f64;
  if (w <= (<u64>1 << 53) && q >= -22 && q <= 22) {
    const f = <f64><i64>w; // w ≤ 2^53: the signed conversion is exact and one instruction
    v = q < 0 ? f / unchecked(POW10[-q]) : f * unchecked(POW10[q]);
  } else {
    v = eiselLemire(w, q);
    if (v < 0) return 2;
  }
  _val = withSign(v, neg);
  return 1;
}

/**
 * v with the sign bit set when `neg` (v ≥ 0, so that is -v): integer bits rather than a
 * select of two floats, which the engine may compile to a branch the random signs of a
 * column of data mispredict.
 */
// @ts-ignore: decorator
@inline
function withSign(v: f64, neg: bool): f64 {
  return reinterpret<f64>(reinterpret<u64>(v) | (<u64>neg << 63));
}

/**
 * Reads a plain decimal at p: the common short forms (at most 8 digits before the point,
 * at most 14 digits in all, no exponent) from one 16-byte load, the rest by readNumberLong.
 */
// @ts-ignore: decorator
@inline
function readNumber(p0: usize): i32 {
  const c = <u32>load<u8>(p0);
  const neg = c == 45;
  const p = p0 + <usize>(neg | (c == 43));
  const b = i8x16.sub(v128.load(p), i8x16.splat(48));
  const mask = i8x16.bitmask(i8x16.lt_u(b, i8x16.splat(10)));
  const n1 = <i32>ctz(~mask);
  if (n1 <= 8) {
    let w: u64;
    if (n1 == 1) w = <u64>(load<u8>(p) - 48); // the most common integer part: one digit
    else w = digits8(p, n1);
    let q: i32 = 0;
    let e = p + <usize>n1;
    let after = <u32>load<u8>(e);
    if (after == 46) {
      const n2 = <i32>ctz(~(mask >> (n1 + 1)));
      if (n1 + n2 < 15) { // the byte after the digits is among the 16 loaded
        // At most 14 digits in all: w < 10^14 is exact, and so is w·10^-n2 by finish
        // (the numbers readNumberLong makes of the same digits).
        const frac = n2 <= 8
          ? digits8(e + 1, n2)
          : digits8(e + 1, 8) * unchecked(POW10_U64[n2 - 8]) + digits8(e + 9, n2 - 8);
        w = w * unchecked(POW10_U64[n2]) + frac;
        q = -n2;
        e += <usize>(n2 + 1);
        after = <u32>load<u8>(e);
        if (n1 + n2 == 0) {
          _end = e;
          return 0;
        }
      } else return readNumberLong(p0);
    } else if (n1 == 0) {
      _end = e;
      return 0;
    }
    if ((after | 32) != 101) {
      _end = e;
      if (w == 0) {
        _val = withSign(0.0, neg);
        return 1;
      }
      return finish(w, q, neg);
    }
  }
  return readNumberLong(p0);
}

/**
 * Reads a plain decimal at p. Returns 1 with the value in _val, 2 for a hard cell (a plain
 * decimal the kernel leaves to the host), 0 for anything else; _end is where it stopped.
 */
function readNumberLong(p: usize): i32 {
  let c = <u32>load<u8>(p);
  let neg = false;
  if (c == 45 || c == 43) {
    neg = c == 45;
    c = <u32>load<u8>(++p);
  }
  let w: u64 = 0;
  let nd: i32 = 0; // significant digits in w
  let q: i32 = 0;
  let trunc = false;
  let digits = 0;
  let d = c - 48;
  while (d < 10) {
    if (nd < 19) {
      w = w * 10 + <u64>d;
      if (w != 0) nd++;
    } else {
      q++;
      if (d != 0) trunc = true;
    }
    digits++;
    d = <u32>load<u8>(++p) - 48;
  }
  if (d == <u32>(46 - 48)) { // '.'
    d = <u32>load<u8>(++p) - 48;
    while (d < 10) {
      if (nd < 19) {
        w = w * 10 + <u64>d;
        q--;
        if (w != 0) nd++;
      } else if (d != 0) trunc = true;
      digits++;
      d = <u32>load<u8>(++p) - 48;
    }
  }
  if (digits == 0) {
    _end = p;
    return 0;
  }
  if (((d + 48) | 32) == 101) { // 'e' or 'E'
    let e = load<u8>(++p);
    let eneg = false;
    if (e == 45 || e == 43) {
      eneg = e == 45;
      e = load<u8>(++p);
    }
    let ed = <u32>e - 48;
    if (ed >= 10) {
      _end = p;
      return 0;
    }
    let ev: i32 = 0;
    while (ed < 10) {
      if (ev < 100000) ev = ev * 10 + <i32>ed;
      ed = <u32>load<u8>(++p) - 48;
    }
    q += eneg ? -ev : ev;
  }
  _end = p;
  if (w == 0) {
    _val = withSign(0.0, neg);
    return 1;
  }
  let v: f64;
  if (!trunc && w <= (<u64>1 << 53) && q >= -22 && q <= 22) {
    const f = <f64><i64>w; // w ≤ 2^53: the signed conversion is exact and one instruction
    v = q < 0 ? f / unchecked(POW10[-q]) : f * unchecked(POW10[q]);
  } else {
    v = eiselLemire(w, q);
    if (v < 0) return 2;
    if (trunc && eiselLemire(w + 1, q) != v) return 2;
  }
  _val = withSign(v, neg);
  return 1;
}

/**
 * End of a skipped field: the first delimiter, '\n', '\r' or '"' at or after p (the sentinel
 * at `end` stops it), 16 bytes at a time.
 */
function scanField(p: usize, end: usize, delim: i32): usize {
  const vd = i8x16.splat(<i8>delim);
  const vn = i8x16.splat(10);
  const vr = i8x16.splat(13);
  const vq = i8x16.splat(34);
  while (p + 16 <= end) {
    const b = v128.load(p);
    const m = v128.or(
      v128.or(i8x16.eq(b, vd), i8x16.eq(b, vn)),
      v128.or(i8x16.eq(b, vr), i8x16.eq(b, vq)),
    );
    const bits = i8x16.bitmask(m);
    if (bits != 0) return p + <usize>ctz(bits);
    p += 16;
  }
  let c = <i32>load<u8>(p);
  while (c != delim && c != 10 && c != 13 && c != 34) c = <i32>load<u8>(++p);
  return p;
}

/** Lines read by csvParseRows's own loop after csvFastRows read none, before it is tried again. */
const FAST_RETRY: i32 = 16;

// csvFastRows's vector constants: i8 176, -118, 46 ("."), -17 … -2; i16 0xff, 10, (100, 1),
// (10000, 1); i8 45 ("-"), 15.
const FAST_CONSTS = memory.data<u8>([
  176, 176, 176, 176, 176, 176, 176, 176, 176, 176, 176, 176, 176, 176, 176, 176,
  138, 138, 138, 138, 138, 138, 138, 138, 138, 138, 138, 138, 138, 138, 138, 138,
  46, 46, 46, 46, 46, 46, 46, 46, 46, 46, 46, 46, 46, 46, 46, 46,
  239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254,
  255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0,
  10, 0, 10, 0, 10, 0, 10, 0, 10, 0, 10, 0, 10, 0, 10, 0,
  100, 0, 1, 0, 100, 0, 1, 0, 100, 0, 1, 0, 100, 0, 1, 0,
  16, 39, 1, 0, 16, 39, 1, 0, 16, 39, 1, 0, 16, 39, 1, 0,
  45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45, 45,
  15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
], 16);

/** Where csvFastRows stopped: the start of the first line it did not read. */
let _fastEnd: usize = 0;

// 10^0 … 10^15, then their negatives: the sign of a value goes into its divisor, so that a
// zero with a minus sign comes out as -0.
const DIV10: StaticArray<f64> = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
  -1e0, -1e1, -1e2, -1e3, -1e4, -1e5, -1e6, -1e7, -1e8, -1e9, -1e10, -1e11, -1e12, -1e13,
  -1e14, -1e15,
];

/**
 * One field of csvFastRows: b holds its 16 bytes, len is the offset of the first byte of its
 * terminator among them (32: none). Stores the field's value at `dst` and returns true when
 * it is a short plain decimal — [-]? digits with at most one point, at least one digit, at
 * most 15 bytes, no exponent — that ends at len; else false.
 */
// @ts-ignore: decorator
@inline
function fastField(
  b: v128,
  len: i32,
  dst: usize,
  kMinus: v128,
  k176: v128,
  kDigit: v128,
  k0F: v128,
  kDot: v128,
  iota: v128,
  kLow: v128,
  kTen: v128,
  k100: v128,
  k10000: v128,
): bool {
  // Digits: b - 176 (wrapping) < -118 as signed bytes.
  const isDig = i8x16.gt_s(kDigit, i8x16.sub(b, k176));
  const dm = i8x16.bitmask(isDig);
  const dotm = i8x16.bitmask(i8x16.eq(b, kDot));
  const neg = i8x16.bitmask(i8x16.eq(b, kMinus)) & 1;
  const nn = ~(dm | dotm | neg);
  const stop = nn & -nn; // the first byte that is none of digit, point, sign
  const low = stop - 1;
  const dots = dotm & low;
  if (len != <i32>ctz(stop)) return false;
  if ((dots & (dots - 1)) != 0) return false;
  if ((dm & low) == 0) return false;
  // The point (or, without one, the terminator) at dp; r = 1 + the last digit's byte, or
  // 2 + it without a point.
  const dp = <i32>ctz(dots | stop);
  const r = len + 1 - <i32>(dots != 0);
  // Lane j takes byte u = r - 17 + j, or u + 1 past the point: the digits right-aligned
  // without the point, zeros in front (the sign, and lanes before the field).
  const u = i8x16.add(iota, i8x16.splat(<i8>r));
  const idx = i8x16.sub(u, i8x16.gt_s(u, i8x16.splat(<i8>(dp - 1))));
  const d = i8x16.swizzle(v128.and(v128.and(b, k0F), isDig), idx);
  // Pairs, quads, octets: i32 lane 0 holds the first 8 of 16 digits, lane 1 the last 8.
  const pr = i16x8.add(i16x8.mul(v128.and(d, kLow), kTen), i16x8.shr_u(d, 8));
  const q4 = i32x4.dot_i16x8_s(pr, k100);
  const q8 = i32x4.dot_i16x8_s(i16x8.narrow_i32x4_u(q4, q4), k10000);
  const xw = <u64>i64x2.extract_lane(q8, 0);
  const w = (xw & 0xffffffff) * 100000000 + (xw >> 32);
  store<f64>(dst, <f64><i64>w / unchecked(DIV10[(r - 1 - dp) + (neg << 4)]));
  return true;
}

/**
 * A run of n ≥ 1 fields of csvFastRows going to consecutive columns of X from `dst`, the
 * last one ended by the byte of `termLast`, the others by the delimiter: the position after
 * the run, or 0 when a field is not read.
 */
// @ts-ignore: decorator
@inline
function fastRun(
  p: usize,
  dst: usize,
  n: i32,
  kDelim: v128,
  termLast: v128,
  kMinus: v128,
  k176: v128,
  kDigit: v128,
  k0F: v128,
  kDot: v128,
  iota: v128,
  kLow: v128,
  kTen: v128,
  k100: v128,
  k10000: v128,
): usize {
  const dstLast = dst + (<usize>(n - 1) << 3);
  while (dst + 8 < dstLast) { // two fields per step: half the loop's own instructions
    const b = v128.load(p);
    const len = <i32>ctz(i8x16.bitmask(i8x16.eq(b, kDelim)));
    const q = p + <usize>(len + 1);
    const b2 = v128.load(q);
    const len2 = <i32>ctz(i8x16.bitmask(i8x16.eq(b2, kDelim)));
    if (!fastField(b, len, dst, kMinus, k176, kDigit, k0F, kDot, iota, kLow, kTen, k100, k10000)) {
      return 0;
    }
    if (
      !fastField(b2, len2, dst + 8, kMinus, k176, kDigit, k0F, kDot, iota, kLow, kTen, k100, k10000)
    ) {
      return 0;
    }
    p = q + <usize>(len2 + 1);
    dst += 16;
  }
  while (dst < dstLast) {
    const b = v128.load(p);
    const len = <i32>ctz(i8x16.bitmask(i8x16.eq(b, kDelim)));
    if (!fastField(b, len, dst, kMinus, k176, kDigit, k0F, kDot, iota, kLow, kTen, k100, k10000)) {
      return 0;
    }
    p += <usize>(len + 1);
    dst += 8;
  }
  const b = v128.load(p);
  const len = <i32>ctz(i8x16.bitmask(i8x16.eq(b, termLast)));
  if (!fastField(b, len, dst, kMinus, k176, kDigit, k0F, kDot, iota, kLow, kTen, k100, k10000)) {
    return 0;
  }
  return p + <usize>(len + 1);
}

/**
 * Reads whole lines from p while every field is a short plain decimal (fastField) that
 * goes to a column of X or to y, followed by the delimiter (the line break after the last
 * field); stops (nothing of that line kept) at the first other line, at `maxRows` rows, or
 * at a line that ends at the sentinel. The rows are those csvParseRows would write: a short
 * decimal has at most 15 digits, an integer w < 10^15 < 2^53, and its value w / 10^k
 * (k ≤ 14 digits after the point) is one correctly rounded division of exact operands
 * (Clinger), of magnitude 0 or in [1e-14, 1e15], inside every limit of f64, f32 and 1e100;
 * the response gets the same domain check. One field per step, with no branch on its
 * shape: the 16 bytes at p give masks of the digits, the point, the sign and the
 * terminator; the field ends at the first byte that is none of digit, point or (first)
 * sign; one swizzle right-aligns the digits without the point, and pairs, quads and octets
 * of digits are combined by i16 multiply-adds. A plus sign is left to csvParseRows.
 *
 * @returns Rows written; _fastEnd is where the next line starts.
 */
function csvFastRows(
  p: usize,
  end: usize,
  delim: i32,
  crlf: i32,
  numFields: i32,
  colMap: usize,
  numCols: i32,
  intercept: i32,
  family: i32,
  x: usize,
  y: usize,
  maxRows: i32,
): i32 {
  // The constants are loaded from memory: the engine then keeps them in registers, where
  // it would build each v128 constant again at every use.
  const k176 = v128.load(FAST_CONSTS);
  const kDigit = v128.load(FAST_CONSTS, 16);
  const k0F = v128.load(FAST_CONSTS, 144);
  const kDot = v128.load(FAST_CONSTS, 32);
  const iota = v128.load(FAST_CONSTS, 48);
  const kLow = v128.load(FAST_CONSTS, 64);
  const kTen = v128.load(FAST_CONSTS, 80);
  const k100 = v128.load(FAST_CONSTS, 96);
  const k10000 = v128.load(FAST_CONSTS, 112);
  const kMinus = v128.load(FAST_CONSTS, 128);
  const kDelim = i8x16.splat(<i8>delim);
  const kEol = i8x16.splat(<i8>(crlf ? 13 : 10));
  const lastMap = colMap + (<usize>(numFields - 1) << 2);
  const rowBytes = <usize>numCols << 3;
  let rows = 0;
  let rowX = x;
  // The usual layout: fields [0, resp) to consecutive columns of X from a0, the response
  // (if any) at resp, fields (resp, numFields) to consecutive columns from b0. Then no
  // column map is read per field.
  let resp = -1;
  let a0 = 0, b0 = 0, nA = 0, nB = 0;
  let runs = true;
  for (let f = 0; f < numFields; f++) {
    const dest = load<i32>(colMap + (<usize>f << 2));
    if (dest == -2 && resp < 0) {
      resp = f;
    } else if (dest < 0) {
      runs = false;
    } else if (resp < 0) {
      if (nA == 0) a0 = dest;
      else if (dest != a0 + nA) runs = false;
      nA++;
    } else {
      if (nB == 0) b0 = dest;
      else if (dest != b0 + nB) runs = false;
      nB++;
    }
  }
  if (runs) {
    const termA = resp < 0 && nB == 0 ? kEol : kDelim;
    const termR = nB == 0 ? kEol : kDelim;
    const offA = <usize>a0 << 3, offB = <usize>b0 << 3;
    _fastEnd = p; // the start of the first line not read
    while (rows < maxRows) {
      if (intercept) store<f64>(rowX, 1.0);
      if (nA > 0) {
        p = fastRun(
          p, rowX + offA, nA, kDelim, termA,
          kMinus, k176, kDigit, k0F, kDot, iota, kLow, kTen, k100, k10000,
        );
        if (p == 0) break;
      }
      if (resp >= 0) {
        const b = v128.load(p);
        const len = <i32>ctz(i8x16.bitmask(i8x16.eq(b, termR)));
        const dst = y + (<usize>rows << 3);
        if (!fastField(b, len, dst, kMinus, k176, kDigit, k0F, kDot, iota, kLow, kTen, k100, k10000)) {
          p = 0;
          break;
        }
        const v = load<f64>(dst);
        if (family == 0 ? (v != 0 && v != 1) : family == 2 && (v < 0 || Math.floor(v) != v)) {
          p = 0;
          break;
        }
        p += <usize>(len + 1);
      }
      if (nB > 0) {
        p = fastRun(
          p, rowX + offB, nB, kDelim, kEol,
          kMinus, k176, kDigit, k0F, kDot, iota, kLow, kTen, k100, k10000,
        );
        if (p == 0) break;
      }
      if (crlf) {
        if (load<u8>(p) != 10) {
          p = 0;
          break;
        }
        p++;
      }
      if (p > end) { // the last line break was the sentinel
        p = 0;
        break;
      }
      rows++;
      rowX += rowBytes;
      _fastEnd = p;
    }
    return rows;
  }
  while (rows < maxRows) {
    const lineStart = p;
    if (intercept) store<f64>(rowX, 1.0);
    let m = colMap;
    let term = numFields == 1 ? kEol : kDelim;
    let ok = false;
    while (true) {
      const dest = load<i32>(m);
      // The field's end from its terminator alone, so that the next field's bytes need not
      // wait for the checks and the conversion of this one.
      const b = v128.load(p);
      const len = <i32>ctz(i8x16.bitmask(i8x16.eq(b, term)));
      if (dest >= 0) {
        const dst = rowX + (<usize>dest << 3);
        if (!fastField(b, len, dst, kMinus, k176, kDigit, k0F, kDot, iota, kLow, kTen, k100, k10000)) {
          break;
        }
      } else {
        if (dest != -2) break; // a skipped field
        const dst = y + (<usize>rows << 3);
        if (!fastField(b, len, dst, kMinus, k176, kDigit, k0F, kDot, iota, kLow, kTen, k100, k10000)) {
          break;
        }
        const v = load<f64>(dst);
        if (family == 0 ? (v != 0 && v != 1) : family == 2 && (v < 0 || Math.floor(v) != v)) {
          break;
        }
      }
      p += <usize>(len + 1);
      if (m == lastMap) {
        ok = true;
        break;
      }
      m += 4;
      if (m == lastMap) term = kEol;
    }
    if (ok && crlf) {
      if (load<u8>(p) == 10) p++;
      else ok = false;
    }
    if (!ok || p > end) { // p > end: the last line break was the sentinel
      _fastEnd = lineStart;
      return rows;
    }
    rows++;
    rowX += rowBytes;
  }
  _fastEnd = p;
  return rows;
}

/**
 * Parses the lines in [src, end) (see the file comment). The byte at `end` must be '\n'
 * (a sentinel); a last line without its line break counts only when `atEof`.
 *
 * @returns The number of rows written.
 */
export function csvParseRows(
  src: usize,
  end: usize,
  atEof: i32,
  delim: i32,
  crlf: i32,
  numFields: i32,
  colMap: usize,
  numCols: i32,
  intercept: i32,
  family: i32,
  f32check: i32,
  x: usize,
  y: usize,
  maxRows: i32,
  hard: usize,
  hardCap: i32,
  state: usize,
  fast: i32,
): i32 {
  let p = src;
  let rows = 0;
  let lines = 0;
  let nHard = 0;
  let status = DONE;
  const rowBytes = <usize>numCols << 3;
  let lineStart = p;
  let fastSkip = 0; // lines to read here before csvFastRows is tried again
  while (true) {
    lineStart = p;
    if (p >= end) break;
    if (rows >= maxRows) {
      status = FULL;
      break;
    }
    if (nHard + numFields > hardCap) {
      status = HARD_FULL;
      break;
    }
    if (fast && fastSkip == 0) {
      // Whole lines of short plain decimals; the line it stops at (if any) is read below.
      const n = csvFastRows(
        p,
        end,
        delim,
        crlf,
        numFields,
        colMap,
        numCols,
        intercept,
        family,
        x + <usize>rows * rowBytes,
        y + (<usize>rows << 3),
        maxRows - rows,
      );
      rows += n;
      lines += n;
      p = _fastEnd;
      fastSkip = n > 0 ? 1 : FAST_RETRY;
      continue;
    }
    fastSkip--;
    let c = <i32>load<u8>(p);
    // Blank line.
    if (c == 10 && !crlf) {
      p++;
      lines++;
      continue;
    }
    if (crlf && c == 13 && load<u8>(p + 1) == 10 && p + 1 < end) {
      p += 2;
      lines++;
      continue;
    }
    const rowX = x + <usize>rows * rowBytes;
    if (intercept) store<f64>(rowX, 1.0);
    const hardBefore = nHard;
    let ok = true;
    for (let f = 0; f < numFields; f++) {
      const dest = load<i32>(colMap + (<usize>f << 2));
      let v: f64 = 0;
      if (dest == -1) {
        p = scanField(p, end, delim);
        if (load<u8>(p) == 34) {
          ok = false;
          break;
        }
      } else {
        const r = readNumber(p);
        const start = p;
        p = _end;
        if (r == 0) {
          ok = false;
          break;
        }
        if (r == 1) {
          v = _val;
          if (v > EXTREME_ABS || v < -EXTREME_ABS) {
            ok = false;
            break;
          }
        } else {
          const h = hard + (<usize>nHard * 12);
          store<i32>(h, dest == -2 ? -(rows + 1) : rows * numCols + dest);
          store<i32>(h + 4, <i32>(start - src));
          store<i32>(h + 8, <i32>(p - start));
          nHard++;
        }
        if (dest == -2) {
          if (r == 1) {
            if (family == 0 ? (v != 0 && v != 1) : family == 2 && (v < 0 || Math.floor(v) != v)) {
              ok = false;
              break;
            }
          }
          store<f64>(y + (<usize>rows << 3), v);
        } else {
          if (r == 1 && f32check) {
            const a = Math.abs(v);
            if (a > F32_MAX || (a != 0 && a < F32_MIN_NORMAL)) {
              ok = false;
              break;
            }
          }
          store<f64>(rowX + (<usize>dest << 3), v);
        }
      }
      // The field's end: a delimiter before the last field, a line break after it.
      c = <i32>load<u8>(p);
      if (f < numFields - 1) {
        if (c != delim) {
          ok = false;
          break;
        }
        p++;
      } else if (c == 10) {
        if (p >= end) {
          if (!atEof) { // the sentinel: an incomplete last line, left for the next call
            ok = false;
            break;
          }
        } else if (crlf) {
          ok = false;
          break;
        } else p++;
      } else if (crlf && c == 13 && load<u8>(p + 1) == 10 && p + 1 < end) {
        p += 2;
      } else {
        ok = false;
        break;
      }
      if (f == numFields - 1) {
        rows++;
        lines++;
      }
    }
    if (!ok) {
      nHard = hardBefore;
      if (!atEof && p + 1 >= end) {
        // Cut off by the end of the buffer: not a problem yet (the next call sees the line whole).
        p = lineStart;
        break;
      }
      status = BAIL;
      p = lineStart;
      break;
    }
  }
  store<i32>(state, <i32>(p - src));
  store<i32>(state + 4, status);
  store<i32>(state + 8, nHard);
  store<i32>(state + 12, lines);
  return rows;
}

/**
 * The '\n' and '\r' bytes of [p, p + n) in one pass: returns the count of '\n' and stores
 * that of '\r' at `out` (i32).
 */
export function csvCountBreaks(p: usize, n: i32, out: usize): i32 {
  const end = p + <usize>n;
  const vn = i8x16.splat(10);
  const vr = i8x16.splat(13);
  let lf = 0, cr = 0;
  while (p + 64 <= end) {
    let an = i8x16.splat(0), ar = i8x16.splat(0);
    for (let k = 0; k < 63 && p + 64 <= end; k++) {
      const b0 = v128.load(p), b1 = v128.load(p, 16), b2 = v128.load(p, 32), b3 = v128.load(p, 48);
      an = i8x16.sub(an, i8x16.eq(b0, vn));
      ar = i8x16.sub(ar, i8x16.eq(b0, vr));
      an = i8x16.sub(an, i8x16.eq(b1, vn));
      ar = i8x16.sub(ar, i8x16.eq(b1, vr));
      an = i8x16.sub(an, i8x16.eq(b2, vn));
      ar = i8x16.sub(ar, i8x16.eq(b2, vr));
      an = i8x16.sub(an, i8x16.eq(b3, vn));
      ar = i8x16.sub(ar, i8x16.eq(b3, vr));
      p += 64;
    }
    const sn = i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(an));
    const sr = i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(ar));
    lf += i32x4.extract_lane(sn, 0) + i32x4.extract_lane(sn, 1) +
      i32x4.extract_lane(sn, 2) + i32x4.extract_lane(sn, 3);
    cr += i32x4.extract_lane(sr, 0) + i32x4.extract_lane(sr, 1) +
      i32x4.extract_lane(sr, 2) + i32x4.extract_lane(sr, 3);
  }
  while (p < end) {
    const c = <i32>load<u8>(p);
    if (c == 10) lf++;
    else if (c == 13) cr++;
    p++;
  }
  store<i32>(out, cr);
  return lf;
}

/** dst[k] = f32(src[k]) for k < n (round to nearest). */
export function csvF64ToF32(src: usize, dst: usize, n: i32): void {
  for (let k = 0; k < n; k++) {
    store<f32>(dst + (<usize>k << 2), <f32>load<f64>(src + (<usize>k << 3)));
  }
}

/** Rows per tile of csvColumnStats (a tile of a few hundred columns stays in the L1/L2 cache). */
const STATS_TILE: i32 = 64;

/**
 * Per-column statistics of rows [0, m) of a row-major block of d f64 columns, accumulated
 * into lo, hi, sum (f64 × d) and h (i32 × d): minimum, maximum, sum in row order, and the
 * hash h = (h ^ high word) · 0x01000193 + low word (wrapping) of each value's bits — the
 * numbers of the scalar loop (lo = v < lo ? v : lo is f64x2.pmin; the lanes add and hash
 * in the same order). Four columns at a time over a tile of rows, in registers.
 */
export function csvColumnStats(
  x: usize,
  m: i32,
  d: i32,
  lo: usize,
  hi: usize,
  sum: usize,
  h: usize,
): void {
  const rowBytes = <usize>d << 3;
  const d4 = d & ~3;
  const P = i32x4.splat(0x01000193);
  for (let i0 = 0; i0 < m; i0 += STATS_TILE) {
    const i1 = min(m, i0 + STATS_TILE);
    const tile = x + <usize>i0 * rowBytes;
    const tileEnd = x + <usize>i1 * rowBytes;
    for (let k = 0; k < d4; k += 4) {
      const o = <usize>k << 3, hp = h + (<usize>k << 2);
      let lo0 = v128.load(lo + o), lo1 = v128.load(lo + o, 16);
      let hi0 = v128.load(hi + o), hi1 = v128.load(hi + o, 16);
      let s0 = v128.load(sum + o), s1 = v128.load(sum + o, 16);
      let hv = v128.load(hp);
      for (let row = tile + o; row < tileEnd; row += rowBytes) {
        const a = v128.load(row), b = v128.load(row, 16);
        lo0 = f64x2.pmin(lo0, a);
        lo1 = f64x2.pmin(lo1, b);
        hi0 = f64x2.pmax(hi0, a);
        hi1 = f64x2.pmax(hi1, b);
        s0 = f64x2.add(s0, a);
        s1 = f64x2.add(s1, b);
        const his = v128.shuffle<i32>(a, b, 1, 3, 5, 7);
        const los = v128.shuffle<i32>(a, b, 0, 2, 4, 6);
        hv = i32x4.add(i32x4.mul(v128.xor(hv, his), P), los);
      }
      v128.store(lo + o, lo0);
      v128.store(lo + o, lo1, 16);
      v128.store(hi + o, hi0);
      v128.store(hi + o, hi1, 16);
      v128.store(sum + o, s0);
      v128.store(sum + o, s1, 16);
      v128.store(hp, hv);
    }
    for (let k = d4; k < d; k++) {
      const o = <usize>k << 3, hp = h + (<usize>k << 2);
      let l = load<f64>(lo + o), u = load<f64>(hi + o), s = load<f64>(sum + o);
      let hk = load<i32>(hp);
      for (let row = tile + o; row < tileEnd; row += rowBytes) {
        const v = load<f64>(row);
        if (v < l) l = v;
        if (v > u) u = v;
        s += v;
        const bits = reinterpret<u64>(v);
        hk = (hk ^ <i32>(bits >> 32)) * 0x01000193 + <i32>bits;
      }
      store<f64>(lo + o, l);
      store<f64>(hi + o, u);
      store<f64>(sum + o, s);
      store<i32>(hp, hk);
    }
  }
}
