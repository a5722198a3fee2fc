/**
 * A loopback TCP proxy in a worker (so it runs while the test's thread
 * blocks in Atomics.wait): forwards to `target`; once armed, after `cutAfter`
 * more client-to-server chunks it closes every connection and stops
 * listening, as a server or network that goes away would.
 */
/// <reference lib="deno.worker" />
let armed = false, left = 0, cut = false;
const conns = new Set<Deno.Conn>();
let listener: Deno.Listener | null = null;

function cutAll(): void {
  cut = true;
  try {
    listener?.close();
  } catch { /* closed */ }
  for (const c of conns) {
    try {
      c.close();
    } catch { /* closed */ }
  }
}

async function pipe(a: Deno.Conn, b: Deno.Conn, counted: boolean): Promise<void> {
  const buf = new Uint8Array(65536);
  try {
    while (!cut) {
      const k = await a.read(buf);
      if (k === null) break;
      if (counted && armed && --left < 0) {
        cutAll();
        return;
      }
      for (let off = 0; off < k;) off += await b.write(buf.subarray(off, k));
    }
  } catch { /* a side closed */ }
  try {
    a.close();
  } catch { /* closed */ }
  try {
    b.close();
  } catch { /* closed */ }
}

self.onmessage = async (e: MessageEvent) => {
  const m = e.data as { target?: number; arm?: number };
  if (m.arm !== undefined) {
    armed = true;
    left = m.arm;
    self.postMessage({ armed: true });
    return;
  }
  listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  self.postMessage({ port: (listener.addr as Deno.NetAddr).port });
  try {
    for await (const c of listener) {
      if (cut) {
        c.close();
        continue;
      }
      const s = await Deno.connect({ hostname: "127.0.0.1", port: m.target! });
      conns.add(c);
      conns.add(s);
      pipe(c, s, true);
      pipe(s, c, false);
    }
  } catch { /* listener closed */ }
};
