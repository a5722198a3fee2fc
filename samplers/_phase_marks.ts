/**
 * Timestamps of a run's phases, for measuring where the time of a whole
 * command goes (bench/time_to_posterior.ts reads them). Off unless the
 * environment variable `TALLMC_PHASES` is set to something other than "" or
 * "0" and may be read (`--allow-env`); then {@link phaseMark} prints
 *
 * ```
 * tallmc-phase <name> <milliseconds since the Unix epoch>
 * ```
 *
 * on stderr, from any thread (chain workers mark their own phases). The
 * clock is `performance.timeOrigin + performance.now()`, comparable across
 * threads and with the clock of the process that started this one. Nothing
 * is printed, and the environment is not read, in a runtime without `Deno`.
 *
 * @module
 */

let _enabled: boolean | null = null;

/** @internal Whether phase marks are printed (decided once per thread). */
export function phaseMarksEnabled(): boolean {
  if (_enabled === null) {
    _enabled = false;
    try {
      const deno = (globalThis as { Deno?: typeof Deno }).Deno;
      const variable = "TALLMC_PHASES";
      if (deno?.permissions?.querySync?.({ name: "env", variable }).state === "granted") {
        const v = deno.env.get(variable);
        _enabled = v !== undefined && v !== "" && v !== "0";
      }
    } catch {
      _enabled = false;
    }
  }
  return _enabled;
}

/**
 * @internal Print the time of the phase `name` on stderr when phase marks are on.
 *
 * @param name The phase's name (no blanks).
 */
export function phaseMark(name: string): void {
  if (!phaseMarksEnabled()) return;
  console.error(`tallmc-phase ${name} ${(performance.timeOrigin + performance.now()).toFixed(1)}`);
}
