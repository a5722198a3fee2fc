/// <reference lib="dom" />
/**
 * What holds the demo page's main thread during HMC-ECS on 10⁵ rows (2 ×
 * (300 + 500), 2 workers): the longest tasks (PerformanceObserver
 * `longtask`), the page's own measures of its steps (`tallmc:*` performance
 * entries) and, from a Chrome DevTools trace (playwright's CDP tracing), what
 * each of the longest tasks spent its time on (the trace events inside it:
 * script, message handlers, layout, paint, garbage collection).
 *
 * Usage: `deno run -A tests/_web_perf_driver.ts [RUNS] [PAGE_DIR…]` builds the
 * page (web/dist), serves it (or each PAGE_DIR, a copy of web/ with its
 * dist/, in turn, so that two versions are measured under the same load) on
 * 127.0.0.1 and prints, per run, the load average, the longest task (wall
 * time, and the most CPU time a task took: on a loaded machine most of a
 * long task is the thread waiting for a core) and the breakdown of the
 * longest ones. Nothing is asserted: the machine's load decides the times.
 *
 * @module
 */
import { chromium, type Page } from "npm:playwright-core@1.65.1";
import { bundleWeb } from "../web/build.ts";
import { serveDirectory } from "../web/static_server.ts";
import { FLAGS } from "./_web_e2e_driver.ts";

/** The run the page is asked for (its address). */
export const PERF_QUERY =
  "?dataset=higgs&n=100000&dataSeed=1&sampler=hmc-ecs&numChains=2&workers=2&numWarmup=300&numSamples=500&seed=1";

/** One trace event (Chrome's trace event format). */
interface _Event {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: { data?: Record<string, unknown>; name?: string };
}

/** What one measured run gives. */
export interface PerfResult {
  /** Load average (1 min) when the run started. */
  load: number;
  /** Final state of the page. */
  state: string;
  /** Main-thread tasks over 50 ms (longtask entries), ms. */
  tasksMs: number[];
  /** The page's longest measured steps. */
  measures: string[];
  /** The longest tasks of the trace, each with what it spent its time on. */
  breakdown: string[];
  /** The most CPU time (thread time) any main-thread task took, ms. */
  maxCpuMs: number;
  /** Main-thread tasks that took over 50 ms of CPU time. */
  cpuOver50: number;
  /** CPU time of the main thread during the run by kind (script, style and layout, paint, …), ms. */
  cpuByKind: Record<string, number>;
}

/** Install the longtask observer before the page's scripts run. */
async function _observe(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const g = globalThis as unknown as { longTasks: number[]; observing: boolean };
    g.longTasks = [];
    g.observing = false;
    new PerformanceObserver((list) => {
      if (!g.observing) return;
      for (const e of list.getEntries()) g.longTasks.push(e.duration);
    }).observe({ type: "longtask", buffered: false });
  });
}

/** The renderer main thread's complete events. */
function _mainThread(events: _Event[]): _Event[] {
  const threadNames = new Map<string, string>();
  for (const e of events) {
    if (e.ph === "M" && e.name === "thread_name") {
      threadNames.set(`${e.pid}:${e.tid}`, String(e.args?.name ?? ""));
    }
  }
  return events.filter((e) =>
    threadNames.get(`${e.pid}:${e.tid}`) === "CrRendererMain" && e.ph === "X" &&
    e.dur !== undefined
  );
}

function _isTask(e: _Event): boolean {
  return e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask";
}

/** The main thread's longest tasks and, per task, its longest inner events. */
function _breakdown(main: _Event[], top = 4): string[] {
  const tasks = main.filter((e) =>
    e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask"
  )
    .sort((a, b) => b.dur! - a.dur!).slice(0, top);
  return tasks.map((t) => {
    const inner = main.filter((e) =>
      e !== t && e.ts >= t.ts && e.ts + e.dur! <= t.ts + t.dur! && e.dur! >= 2000 &&
      !/RunTask/.test(e.name)
    ).sort((a, b) => b.dur! - a.dur!).slice(0, 8);
    const what = inner.map((e) => {
      const d = e.args?.data ?? {};
      const detail = String(d.functionName ?? d.type ?? d.url ?? "").slice(0, 40);
      const cpu = e.tdur === undefined ? "" : `/${(e.tdur / 1000).toFixed(0)}`;
      return `${e.name}${detail === "" ? "" : `(${detail})`} ${(e.dur! / 1000).toFixed(0)}${cpu}`;
    });
    const cpu = t.tdur === undefined ? "" : ` (${(t.tdur / 1000).toFixed(0)} ms on the CPU)`;
    return `${(t.dur! / 1000).toFixed(0)} ms${cpu}: ${what.join(", ")}`;
  });
}

/**
 * One run of the page at `origin`, traced.
 *
 * @param origin The server.
 * @param executablePath Chromium.
 * @returns What was measured.
 */
export async function measure(origin: string, executablePath: string): Promise<PerfResult> {
  const browser = await chromium.launch({ executablePath, args: FLAGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await _observe(page);
    await page.goto(`${origin}/${PERF_QUERY}`);
    await page.waitForFunction("document.body.dataset.state === 'idle'", null, { polling: 250 });
    await browser.startTracing(page, {
      categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8"],
    });
    await page.evaluate(() => (globalThis as unknown as { observing: boolean }).observing = true);
    const load = Number((await Deno.readTextFile("/proc/loadavg")).split(" ")[0]);
    await page.click("#run");
    await page.waitForFunction(
      "['done', 'error', 'stopped'].includes(document.body.dataset.state)",
      null,
      { timeout: 180_000, polling: 250 },
    );
    await page.waitForTimeout(2500); // the last plot updates and the plots drawn after the run
    const seen = await page.evaluate(() => {
      const g = globalThis as unknown as { longTasks: number[] };
      return {
        state: document.body.dataset.state ?? "",
        tasksMs: g.longTasks.map((x) => Math.round(x)),
        measures: performance.getEntriesByType("measure")
          .filter((e) => e.name.startsWith("tallmc:") && e.duration >= 10)
          .sort((a, b) => b.duration - a.duration)
          .slice(0, 16)
          .map((e) => `${e.name.slice(7)} ${Math.round(e.duration)} ms`),
      };
    });
    const trace = JSON.parse(new TextDecoder().decode(await browser.stopTracing()));
    const main = _mainThread(trace.traceEvents ?? trace);
    const cpu = main.filter(_isTask).map((e) => (e.tdur ?? 0) / 1000);
    const kinds: Record<string, string> = {
      FunctionCall: "script",
      TimerFire: "script",
      FireAnimationFrame: "script",
      HandlePostMessage: "script",
      EvaluateScript: "script",
      UpdateLayoutTree: "style",
      Layout: "layout",
      PrePaint: "paint",
      Paint: "paint",
      Layerize: "paint",
      Commit: "commit",
      ParseHTML: "parse HTML",
    };
    const cpuByKind: Record<string, number> = {};
    for (const e of main) {
      const k = kinds[e.name];
      // Count each kind once: not an event inside another of the same kind.
      if (k === undefined || e.tdur === undefined) continue;
      const inside = main.some((o) =>
        o !== e && kinds[o.name] === k && o.ts <= e.ts && o.ts + o.dur! >= e.ts + e.dur! &&
        o.dur! > e.dur!
      );
      if (!inside) cpuByKind[k] = Math.round((cpuByKind[k] ?? 0) + e.tdur / 1000);
    }
    return {
      load,
      ...seen,
      cpuByKind,
      breakdown: _breakdown(main),
      maxCpuMs: Math.round(Math.max(0, ...cpu)),
      cpuOver50: cpu.filter((x) => x > 50).length,
    };
  } finally {
    await browser.close();
  }
}

if (import.meta.main) {
  const runs = Number(Deno.args[0] ?? 1);
  const executablePath = "/usr/bin/chromium";
  let dirs = Deno.args.slice(1);
  if (dirs.length === 0) {
    await bundleWeb();
    dirs = [new URL("../web", import.meta.url).pathname];
  }
  const servers = dirs.map((d) => serveDirectory(d));
  try {
    for (let i = 0; i < runs; i++) {
      for (const [k, server] of servers.entries()) {
        const r = await measure(server.origin, executablePath);
        console.log(
          `run ${i + 1} ${dirs[k]}: load ${r.load}, ${r.state}; longest task ${
            Math.max(0, ...r.tasksMs)
          } ms; ${r.tasksMs.length} tasks > 50 ms (${r.tasksMs.join(", ")}); ` +
            `most CPU in one task ${r.maxCpuMs} ms, ${r.cpuOver50} tasks > 50 ms of CPU`,
        );
        console.log(`  page steps: ${r.measures.join(", ")}`);
        console.log(
          `  main-thread CPU by kind (ms): ${
            Object.entries(r.cpuByKind).map(([k, v]) => `${k} ${v}`).join(", ")
          }`,
        );
        for (const b of r.breakdown) console.log(`  task ${b}`);
      }
    }
  } finally {
    for (const s of servers) await s.close();
  }
}
