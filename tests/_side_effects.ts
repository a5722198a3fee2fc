/**
 * Test helper: what importing a module does to a page-like global scope.
 *
 * @module
 */

/**
 * Runs `target` (a module URL) in a fresh Deno worker — a global scope with
 * `onmessage`, `addEventListener` and `postMessage` like a page's — and
 * reports what importing it changed: the handler slot, workers constructed,
 * URLs resolved against a module URL, and whether a message posted after the
 * import reached anything but the probe's own listener.
 */
export async function importSideEffects(target: string, ping = true): Promise<{
  onmessageChanged: boolean;
  workersStarted: number;
  replies: unknown[];
}> {
  const probe = `
    const before = self.onmessage;
    let workers = 0;
    const W = globalThis.Worker;
    globalThis.Worker = class extends W { constructor(...a) { super(...a); workers++; } };
    await import(${JSON.stringify(target)});
    self.addEventListener("message", (e) => postMessage({ echo: e.data }));
    postMessage({ onmessageChanged: self.onmessage !== before, workersStarted: workers });
  `;
  const url = `data:application/javascript,${encodeURIComponent(probe)}`;
  const worker = new Worker(url, { type: "module" });
  const replies: unknown[] = [];
  let imported: { onmessageChanged: boolean; workersStarted: number } | null = null;
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no answer in 60 s")), 60_000);
      // Give a library handler, if any, time to answer "ping" too.
      const settle = () =>
        setTimeout(() => {
          clearTimeout(timer);
          resolve({ ...imported!, replies });
        }, 200);
      worker.onerror = (e) => {
        e.preventDefault();
        if (imported === null) {
          clearTimeout(timer);
          reject(new Error(`worker error: ${e.message}`));
        } else replies.push({ error: e.message }); // a handler other than the probe's ran
      };
      worker.onmessage = (e) => {
        replies.push(e.data);
        if (imported === null) {
          imported = e.data;
          if (ping) worker.postMessage("ping");
          settle();
        }
      };
    });
  } finally {
    worker.terminate();
  }
}
