import assert from "node:assert/strict";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";

/**
 * The "Your own likelihood" block of docs/models.md, extracted and run: a user's
 * PoissonRegression (plain TypeScript, PerRowHessianModel) under full-data
 * HMC and HMC-ECS reproduces GlmModel's Poisson posterior (means within 4
 * combined MCSE, sds within 20 %) — the block's own assertions.
 */
Deno.test("[e2e] docs/models.md user-model example runs and matches GlmModel's posterior", async () => {
  const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
  const guide = await Deno.readTextFile(join(root, "docs", "models.md"));
  const m = /<!-- example: user-model -->\s*```ts\n([\s\S]*?)\n```/.exec(guide);
  assert.ok(m, "docs/models.md has the user-model example");
  // The block imports by paths relative to docs/: make them absolute.
  const code = m[1].replaceAll(
    /from "(\.\.?\/[^"]+)"/g,
    (_, rel: string) => `from "${pathToFileURL(join(root, "docs", rel)).href}"`,
  );
  assert.notEqual(code, m[1]);
  const dir = await Deno.makeTempDir();
  const path = join(dir, "readme_user_model.ts");
  await Deno.writeTextFile(path, code);
  try {
    // Type-check it as a user would (strict), then run it.
    const check = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", path],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(check.code, 0, new TextDecoder().decode(check.stderr));
    await import(pathToFileURL(path).href);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
