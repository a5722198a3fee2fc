/**
 * core/shared_region.ts: a region (and its extensions) is handed to a worker
 * as it is — not cleared by the owner — and the worker's attached arena
 * clears every block it claims there.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import {
  attachRegion,
  grantExtension,
  releaseRegion,
  reserveRegion,
} from "../../core/shared_region.ts";
import { ScratchF64 } from "../../core/scratch.ts";

Deno.test("a region over used bytes is not cleared by its owner; the attached arena clears what it claims", () => {
  const owner = loadCore({ backend: "reference", shared: true });
  const bytes = 1 << 16;
  // Bytes the owner used and freed: the region's first fit.
  const used = owner.alloc(bytes, 64);
  new Uint8Array(owner.memory.buffer, used, bytes).fill(0xab);
  owner.free(used);
  const region = reserveRegion(owner, bytes, { growable: true });
  assert.equal(region.start, used);
  const raw = new Uint8Array(owner.memory.buffer, region.start, bytes);
  assert.equal(raw[bytes - 1], 0xab, "the owner left the region as it was");
  const worker = attachRegion(region, (b) => grantExtension(owner, region, b));
  const a = worker.alloc(4096, 16);
  assert.ok(a >= region.start && a + 4096 <= region.end);
  assert.ok(new Uint8Array(worker.memory.buffer, a, 4096).every((v) => v === 0));
  const s = new ScratchF64(worker, 1000);
  assert.ok(s.view().every((v) => v === 0));
  assert.equal(raw[bytes - 1], 0xab, "bytes not claimed stay as they were");
  // Freed and claimed again after a write: cleared again.
  s.view().fill(7);
  s.dispose();
  const t = new ScratchF64(worker, 1000);
  assert.ok(t.view().every((v) => v === 0));
  // An extension over used bytes: cleared when claimed too.
  const more = owner.alloc(bytes, 64);
  new Uint8Array(owner.memory.buffer, more, bytes).fill(0xcd);
  owner.free(more);
  const big = worker.alloc(2 * bytes, 16);
  assert.ok(new Uint8Array(worker.memory.buffer, big, 2 * bytes).every((v) => v === 0));
  t.dispose();
  releaseRegion(owner, region);
});
