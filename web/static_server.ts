/**
 * A small static file server on 127.0.0.1 for `deno task web` and the tests:
 * serves one directory with the content types Deno and browsers need
 * (TypeScript modules as `application/typescript`, which Deno requires of a
 * remote `.ts` module), never outside that directory.
 *
 * @module
 */
import { extname, join, normalize, sep } from "node:path";

const _TYPES: Record<string, string> = {
  ".ts": "application/typescript; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".csv": "text/csv; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".wasm": "application/wasm",
};

/** A running server: its origin, the paths it served, and how to stop it. */
export interface StaticServer {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** The port. */
  port: number;
  /** Request paths answered 200, in order. */
  served: string[];
  /** Stop the server and wait until it has stopped. */
  close(): Promise<void>;
}

/**
 * Serve `root` on 127.0.0.1.
 *
 * @param root The directory to serve (requests cannot leave it).
 * @param port The port (default 0: a free port the OS picks).
 * @param options `crossOriginIsolated` (default true): send COOP/COEP headers.
 * @returns The running server.
 */
export function serveDirectory(
  root: string,
  port = 0,
  options: { crossOriginIsolated?: boolean } = {},
): StaticServer {
  const isolation: Record<string, string> = (options.crossOriginIsolated ?? true)
    ? {
      // The page may share memory with workers (sampleParallel); every
      // resource it loads is same-origin.
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-embedder-policy": "require-corp",
    }
    : {};
  const base = normalize(root).replace(/[\\/]+$/, "");
  const served: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen() {} },
    async (request) => {
      const path = decodeURIComponent(new URL(request.url).pathname);
      const file = normalize(join(base, path.endsWith("/") ? path + "index.html" : path));
      if (file !== base && !file.startsWith(base + sep)) {
        return new Response("outside the served directory", { status: 403 });
      }
      try {
        const body = await Deno.readFile(file);
        served.push(path);
        return new Response(body, {
          headers: {
            "content-type": _TYPES[extname(file)] ?? "application/octet-stream",
            "cache-control": "no-store",
            ...isolation,
          },
        });
      } catch {
        return new Response("not found", { status: 404 });
      }
    },
  );
  const bound = (server.addr as Deno.NetAddr).port;
  return {
    origin: `http://127.0.0.1:${bound}`,
    port: bound,
    served,
    async close() {
      await server.shutdown();
    },
  };
}
