/**
 * Tests against live database servers, run as the steps of one `[e2e]` test
 * that starts the servers first and stops them last. A run that filters the
 * end-to-end tests out (`deno task test`) still loads the file but starts no
 * server and leaves none running.
 *
 * @module
 */

/** One test on the live servers. */
export type LiveStep = {
  name: string;
  fn: (t: Deno.TestContext) => void | Promise<void>;
};

/**
 * `steps` as one test named `name` (which carries the `[e2e]` tag), for
 * `Deno.test()` in the test file: `start()` runs first; each step whose
 * `skip()` gives a reason is ignored, and the reason printed; `stop()` runs
 * last, also after a failure.
 *
 * @param name The test's name, starting with `[e2e]`.
 * @param options `start` and `stop` the servers; `skip` tells, after `start`,
 *   why a step cannot run (`undefined` when it can); `steps` the tests.
 * @returns The test's definition.
 */
export function liveServerTest(
  name: string,
  options: {
    start: () => Promise<void>;
    stop: () => Promise<void>;
    skip: (step: LiveStep) => string | undefined;
    steps: readonly LiveStep[];
  },
): Deno.TestDefinition {
  if (!name.startsWith("[e2e] ")) throw new Error(`a live-server test is [e2e]: ${name}`);
  return {
    name,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async (t) => {
      await options.start();
      try {
        for (const step of options.steps) {
          const why = options.skip(step);
          if (why !== undefined) console.log(`skipped: ${step.name}: ${why}`);
          await t.step({ name: step.name, ignore: why !== undefined, fn: step.fn });
        }
      } finally {
        await options.stop();
      }
    },
  };
}
