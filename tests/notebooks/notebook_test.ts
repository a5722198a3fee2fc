/**
 * The example notebook (notebooks/tallmc.ipynb) and its display helpers
 * (notebooks/display.ts). With Jupyter's nbconvert and the Deno kernel
 * installed (.ci/run installs Debian's jupyter-nbconvert and runs
 * `deno jupyter --install`), the notebook is executed in the kernel and its
 * outputs are checked; otherwise its code cells run as one script under
 * `deno run`, and the test says why the kernel was not used.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { htmlTable, JUPYTER_DISPLAY, show, vegaLite } from "../../notebooks/display.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const notebook = `${root}notebooks/tallmc.ipynb`;

interface Cell {
  cell_type: string;
  source: string[];
  outputs?: { output_type: string; data?: Record<string, unknown>; text?: string[] }[];
}

Deno.test("notebook display helpers: HTML table, Vega-Lite bundle with an SVG, text outside a kernel", async () => {
  const t = htmlTable(["name", "value"], [["a<b", 1.23456], ["c", 2]], { caption: "T", digits: 2 });
  const b = await t[JUPYTER_DISPLAY]();
  assert.match(b["text/html"] as string, /<caption>T<\/caption>/);
  assert.match(b["text/html"] as string, /<td style="text-align:left">a&lt;b<\/td>/);
  assert.match(b["text/html"] as string, /<td style="text-align:right">1\.23<\/td>/);
  assert.equal(b["text/plain"], "T\nname  value\na<b    1.23\nc         2");
  const spec = {
    title: "t",
    data: { values: [{ x: 1, y: 2 }, { x: 2, y: 3 }] },
    mark: "point",
    encoding: { x: { field: "x", type: "quantitative" }, y: { field: "y", type: "quantitative" } },
  };
  const v = await vegaLite(spec)[JUPYTER_DISPLAY]();
  assert.deepEqual(Object.keys(v).sort(), [
    "application/vnd.vegalite.v5+json",
    "image/svg+xml",
    "text/plain",
  ]);
  assert.match(v["image/svg+xml"] as string, /^<svg/);
  assert.equal(
    (v["application/vnd.vegalite.v5+json"] as { $schema: string }).$schema,
    "https://vega.github.io/schema/vega-lite/v5.json",
  );
  const printed: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => printed.push(a.join(" "));
  try {
    await show("hello", t);
  } finally {
    console.log = log;
  }
  assert.deepEqual(printed, ["hello", b["text/plain"]]);
});

async function _output(cmd: string, args: string[]): Promise<{ ok: boolean; text: string }> {
  try {
    const r = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
    const dec = new TextDecoder();
    return { ok: r.success, text: dec.decode(r.stdout) + dec.decode(r.stderr) };
  } catch (e) {
    return { ok: false, text: (e as Error).message };
  }
}

/** Why the Jupyter kernel cannot be used here, or null when it can. */
async function _noKernel(): Promise<string | null> {
  const nbconvert = await _output("jupyter", ["nbconvert", "--version"]);
  if (!nbconvert.ok) {
    return "jupyter nbconvert is not installed (Debian: apt-get install jupyter-nbconvert)";
  }
  const specs = await _output("jupyter", ["kernelspec", "list"]);
  if (!/^\s*deno\s/m.test(specs.text)) {
    return "the Deno kernel is not installed (deno jupyter --install)";
  }
  return null;
}

/** What the notebook displays: the summary table and the two kinds of figure. */
const _DISPLAYS = [
  /negative-binomial regression\nparameter +mean +sd/,
  /Vega-Lite figure: trace of the coefficient of z/,
  /Vega-Lite figure: Hanging rootogram/,
];

/** The LOO comparison's Poisson row (elpd difference, its SE): the last cell's output. */
const _COMPARISON = /^poisson +(-\d+\.\d) +(\d+\.\d)/m;

Deno.test("[e2e] the example notebook runs: a run, a summary table, Vega-Lite figures, a LOO comparison", async () => {
  const nb = JSON.parse(await Deno.readTextFile(notebook)) as {
    cells: Cell[];
    metadata: { kernelspec: { name: string } };
  };
  assert.equal(nb.metadata.kernelspec.name, "deno");
  assert.ok(nb.cells.every((c) => (c.outputs ?? []).length === 0), "committed without outputs");
  const why = await _noKernel();
  let text: string;
  // One execution in the kernel: its outputs' text/plain, every output checked.
  const execute = async (): Promise<string> => {
    const dir = await Deno.makeTempDir();
    try {
      const out = `${dir}/executed.ipynb`;
      const r = await _output("jupyter", [
        "nbconvert",
        "--to",
        "notebook",
        "--execute",
        notebook,
        "--output",
        out,
        "--ExecutePreprocessor.timeout=600",
      ]);
      assert.ok(r.ok, r.text);
      const done = JSON.parse(await Deno.readTextFile(out)) as { cells: Cell[] };
      const outputs = done.cells.flatMap((c) => c.outputs ?? []);
      assert.ok(!outputs.some((o) => o.output_type === "error"), JSON.stringify(outputs));
      const mimes = new Set(outputs.flatMap((o) => Object.keys(o.data ?? {})));
      for (const m of ["text/html", "application/vnd.vegalite.v5+json", "image/svg+xml"]) {
        assert.ok(mimes.has(m), `no ${m} output; got ${[...mimes]}`);
      }
      return outputs.map((o) => {
        const t = o.data?.["text/plain"] ?? o.text ?? "";
        return Array.isArray(t) ? t.join("") : String(t);
      }).join("\n");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  };
  if (why === null) {
    text = await execute();
    // A display message can reach nbconvert after its cell has finished
    // (seen on a loaded machine: one table, one figure or the last cell's
    // comparison missing, no error):
    // a second execution tells that apart from a notebook that shows nothing.
    const missing = [..._DISPLAYS, _COMPARISON].filter((p) => !p.test(text));
    if (missing.length > 0) {
      console.log(`display not captured (${missing.join(", ")}); executing once more`);
      text = await execute();
    }
  } else {
    console.log(`not executed in a Jupyter kernel: ${why}; running its cells as a script`);
    const code = nb.cells.filter((c) => c.cell_type === "code").map((c) => c.source.join(""))
      .join("\n\n")
      .replaceAll('"../', `"${new URL("../../", import.meta.url).href}`)
      .replaceAll('"./', `"${new URL("../../notebooks/", import.meta.url).href}`);
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${dir}/notebook.ts`, code);
      const r = await _output(Deno.execPath(), [
        "run",
        "--allow-read",
        "--allow-env",
        "--config",
        `${root}deno.json`,
        `${dir}/notebook.ts`,
      ]);
      assert.ok(r.ok, r.text);
      text = r.text;
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  for (const p of _DISPLAYS) assert.match(text, p);
  // The comparison ranks the negative binomial first; the Poisson row is far below.
  const m = _COMPARISON.exec(text);
  assert.ok(m, text);
  assert.ok(Number(m[1]) < -4 * Number(m[2]), m[0]);
  assert.match(text, /^negbin +0 +0 +0 /m);
});
