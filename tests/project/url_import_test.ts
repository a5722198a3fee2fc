/**
 * mod.ts imported by URL, as a new user would: the repository is served over
 * HTTP on 127.0.0.1, and a script in a temporary directory outside the
 * repository (no deno.json, no import map: `--no-config`) runs the README's
 * "Import by URL" example against it with only `--allow-import` for that
 * host. No other permission is given: the `npm:` dependencies are resolved
 * by Deno's module loader, which needs none, and importing mod.ts reads no
 * file and no environment variable.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readmeBlock, REPO_ROOT, serveDirectory } from "../_serve.ts";

/**
 * The repository served under a path of its own (a fresh directory holding a
 * link to it): every run asks for URLs no earlier run used, so nothing can
 * come from Deno's cache of remote modules, whichever port the server gets.
 */
async function serveRepository(): Promise<
  { server: ReturnType<typeof serveDirectory>; base: string; root: string; prefix: string }
> {
  const root = await Deno.makeTempDir({ prefix: "tallmc_url_root_" });
  const prefix = `/${crypto.randomUUID()}`;
  // `ln -s` (a run permission) rather than Deno.symlink, which needs unscoped
  // read and write permissions the test suite does not have.
  const ln = await new Deno.Command("ln", { args: ["-s", REPO_ROOT, join(root, prefix.slice(1))] })
    .output();
  assert.equal(ln.code, 0, new TextDecoder().decode(ln.stderr));
  const server = serveDirectory(root);
  return { server, base: `${server.origin}${prefix}/`, root, prefix };
}

Deno.test("[e2e] mod.ts by URL: the README example samples with --no-config and --allow-import only", async () => {
  const { server, base, root, prefix } = await serveRepository();
  const dir = await Deno.makeTempDir({ prefix: "tallmc_url_import_" });
  try {
    const example = await readmeBlock("url-import-example");
    const script = example.replace("https://example.org/tallmc/", base);
    assert.notEqual(script, example, "the README example imports https://example.org/tallmc/");
    const file = join(dir, "example.ts");
    await Deno.writeTextFile(file, script);
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-config",
        "--quiet",
        `--reload=${server.origin}/`,
        `--allow-import=127.0.0.1:${server.port}`,
        file,
      ],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    const out = new TextDecoder().decode(stdout);
    const err = new TextDecoder().decode(stderr);
    assert.equal(code, 0, `the example failed:\n${err}`);
    // "name\tmean\ttrue value" per coefficient.
    const rows = out.trim().split("\n").map((line) => line.split("\t"));
    assert.equal(rows.length, 3, out);
    for (const [name, mean, truth] of rows) {
      const m = Number(mean), t = Number(truth.replace("true ", ""));
      // n = 2000, σ = 1, standard normal covariates: the posterior sd of each
      // coefficient is about 1/√2000 ≈ 0.022; 0.15 is ~7 sd, and the Monte
      // Carlo error of 300 draws is well inside it.
      assert.ok(Math.abs(m - t) < 0.15, `${name}: posterior mean ${m}, generating value ${t}`);
    }
    assert.ok(server.served.includes(`${prefix}/mod.ts`), server.served.join(" "));
    assert.ok(!server.served.some((p) => p.includes("mnist")), "mod.ts must not load MNIST");
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(root, { recursive: true });
    await server.close();
  }
});

Deno.test("[e2e] mod.ts by URL: `deno check --all` passes on the README example (no worker lib in the graph)", async () => {
  const { server, base, root, prefix } = await serveRepository();
  const dir = await Deno.makeTempDir({ prefix: "tallmc_url_check_" });
  try {
    const example = await readmeBlock("url-import-example");
    const script = example.replace("https://example.org/tallmc/", base);
    const file = join(dir, "example.ts");
    await Deno.writeTextFile(file, script);
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "check",
        "--no-config",
        "--quiet",
        "--all",
        `--reload=${server.origin}/`,
        `--allow-import=127.0.0.1:${server.port}`,
        file,
      ],
      cwd: dir,
      stdout: "null",
      stderr: "piped",
      signal: AbortSignal.timeout(180_000),
    }).output();
    assert.equal(code, 0, `deno check --all failed:\n${new TextDecoder().decode(stderr)}`);
    // The check read the library's modules, and no worker entry point among them.
    assert.ok(server.served.includes(`${prefix}/mod.ts`), server.served.join(" "));
    for (const entry of ["_shard_worker.ts", "_pass_worker.ts", "chain_worker.ts"]) {
      // The whole file name: models/_early_pass_worker.ts (in the graph, no
      // worker lib) also ends with "_pass_worker.ts".
      assert.ok(
        !server.served.some((p) => p.endsWith(`/${entry}`)),
        `${entry} is in the static graph`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(root, { recursive: true });
    await server.close();
  }
});
