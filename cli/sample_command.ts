/**
 * `tallmc sample`: draw from a GLM posterior with any registered sampler.
 *
 * Order of work, so that nothing the user made is lost and bad input fails
 * before any cost: parse and check every flag (the sampler's own flags come
 * from its registry description, loaded alone by ./catalog.ts, with their ranges) → refuse sizes whose
 * memory would not fit → refuse an `--out` that is the `--data` file (device
 * and inode) and check it is writable → load the data and build the sampler
 * → stream each draw to a temporary file beside `--out` → rename it into
 * place (also when a chain stopped, on SIGINT / SIGTERM, or when the disk is
 * full, with the whole rows on disk) → report divergences and early stops →
 * print the summary (a failure there cannot lose the draws). A run that
 * cannot start leaves `--out` as it was. See docs/cli_files.md. The help text
 * is in ./sample_help.ts, the sampler flags' checks in ./sample_flags.ts,
 * opening `--data` (files and database tables) in ./sample_data.ts, the run
 * and its reports in ./sample_run.ts.
 *
 * Exit codes: 0 when every chain ran to the end (divergent transitions, if
 * any, are reported as Stan does), 2 for bad flags or data, when a chain
 * stopped early (the draws before the stop are in `--out`) or when `--out`
 * could not be written in full (disk full; the rows on disk are said),
 * 130 / 143 after SIGINT / SIGTERM (every draw made is in `--out`).
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import type { DatabaseGlmModel } from "../engines/database_glm.ts";
import type { GlmModel } from "../models/glm.ts";
import type { ShardedGlmModel } from "../models/sharded_glm.ts";
import type { UserGlmModel } from "../models/user_glm.ts";
import type { SamplingResult } from "../samplers/driver.ts";
import {
  adoptChainWorkers,
  holdChainWorkers,
  prestartChainWorkers,
  sampleParallel,
} from "../samplers/parallel.ts";
import { phaseMark } from "../samplers/_phase_marks.ts";
import { sharedCentringPasses, sharedHmcEcsCentring } from "../samplers/hmc_ecs/shared_centring.ts";
import { hessianSampleFraction } from "../samplers/hmc_ecs/centring.ts";
import { type HmcEcsOptions, resolveHmcEcsOptions } from "../samplers/hmc_ecs/options.ts";
import { prestartPassWorkers } from "../models/threaded_glm.ts";
import { modelSpecOf } from "../models/model_spec.ts";
import { builtInSamplerNames, loadSampler } from "../samplers/catalog.ts";
import {
  checkSamplerFlagConflicts,
  CliUsageError,
  type FlagSpec,
  intFlag,
  parseFlags,
  processExit,
  resolveUserPath,
} from "./args.ts";
import { DrawsFileWriter } from "./draws_writer.ts";
import { cmdstanChainPath, CmdStanDrawsWriter } from "./cmdstan_writer.ts";
import { checkWritable, refuseSameFile } from "./safe_output.ts";
import { initFromFlag, printVerdict, RUN_CHECK_FLAGS } from "./verdict_print.ts";
import { ChainProgress } from "./progress.ts";
import {
  checkModelFlags,
  dataTooLargeHint,
  FAMILY_OPTION_FLAGS,
  familyFromFlags,
  GLM_DATA_FLAGS,
  MODEL_FLAGS,
  modelFromFlags,
  userFamilyModelFromFlags,
} from "./model_options.ts";
import { USER_FAMILY_FLAGS, userFamilyFromFlags } from "./user_family_flags.ts";
import { duckDbDataOf, isDuckDbData } from "./duckdb_data.ts";
import {
  checkMemory as _checkMemory,
  checkOptionBounds as _checkOptionBounds,
  optionValue as _optionValue,
  samplerFlags as _samplerFlags,
  userMessage as _userMessage,
} from "./sample_flags.ts";
import {
  type DrawsOutput,
  extremeColumnsHint as _extremeColumnsHint,
  finishStopped as _finishStopped,
  keepOrDiscard as _keepOrDiscard,
  printSummary as _printSummary,
  report as _report,
  reportWriteFailure as _reportWriteFailure,
  sampleInThread as _sampleInThread,
  Stopped as _Stopped,
  StopWatch as _StopWatch,
  summaryPreparer as _summaryPreparer,
} from "./sample_run.ts";
import { openSampleData } from "./sample_data.ts";
import { isRowStoreFile } from "./file_kind.ts";

const _COMMON_FLAGS: FlagSpec = {
  ...GLM_DATA_FLAGS,
  sampler: { type: "string" },
  samples: { type: "string" },
  warmup: { type: "string" },
  chains: { type: "string" },
  seed: { type: "string" },
  out: { type: "string" },
  format: { type: "string" },
  f32: { type: "boolean" },
  thin: { type: "string" },
  workers: { type: "string" },
  quiet: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/** Files `--format cmdstan` may hold open at once (one per chain). */
const _MAX_CMDSTAN_FILES = 256;

/**
 * Run `tallmc sample`.
 *
 * @param args The arguments after `sample`.
 * @returns The exit code (0, or 2 when a chain stopped early).
 * @throws {CliUsageError} For bad flags or data (exit code 2).
 */
export async function sampleCommand(args: string[]): Promise<number> {
  const cleanups: (() => void)[] = [];
  try {
    return await _sampleCommand(args, cleanups);
  } finally {
    for (const c of cleanups) c();
  }
}

async function _sampleCommand(args: string[], cleanups: (() => void)[]): Promise<number> {
  phaseMark("modules-loaded");
  const samplerFlags = _samplerFlags();
  const flags: FlagSpec = {
    ..._COMMON_FLAGS,
    ...FAMILY_OPTION_FLAGS,
    ...USER_FAMILY_FLAGS,
    ...MODEL_FLAGS,
    ...RUN_CHECK_FLAGS,
  };
  for (const flag of samplerFlags.keys()) flags[flag] = { type: "string" };
  const { values } = parseFlags("sample", args, { flags });
  if (values.help) {
    // The help lists every sampler's options: only here are they all imported.
    console.log((await import("./sample_help.ts")).sampleHelp());
    return 0;
  }
  checkModelFlags(values);
  // A family written in AssemblyScript (--family-source) instead of --family.
  const userFamily = await userFamilyFromFlags(values, resolveUserPath);
  for (
    const req of [
      ...(userFamily === null ? ["family"] : []),
      "data",
      ...(values.formula === undefined ? ["response"] : []),
    ]
  ) {
    if (values[req] === undefined) {
      throw new CliUsageError(
        `sample needs --${req}${
          req === "family" ? " or --family-source" : ""
        } (see tallmc sample --help)`,
      );
    }
  }
  const choice = userFamily?.choice ?? familyFromFlags(values);
  const samplerName = (values.sampler as string | undefined) ?? "hmc";
  const samplerNames = builtInSamplerNames();
  if (!samplerNames.includes(samplerName)) {
    throw new CliUsageError(
      `--sampler must be one of ${samplerNames.join(", ")}; got ${JSON.stringify(samplerName)}`,
    );
  }
  // Only the chosen sampler's modules (the registry would import them all).
  const description = await loadSampler(samplerName);
  const samplerOptions: Record<string, unknown> = {};
  for (const [flag, { samplers }] of samplerFlags) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const own = (description.options ?? []).find((o) => o.flag === flag);
    if (own === undefined) {
      throw new CliUsageError(
        `--${flag} does not apply to --sampler ${samplerName} (it applies to ${
          samplers.join(", ")
        })`,
      );
    }
    samplerOptions[own.name] = _optionValue(own, raw);
  }
  checkSamplerFlagConflicts(values, description);
  for (const o of description.options ?? []) {
    if (o.default === "required" && values[o.flag] === undefined) {
      throw new CliUsageError(
        `--sampler ${samplerName} needs --${o.flag} (${o.help}; see tallmc sample --help)`,
      );
    }
  }
  const numSamples = intFlag(values.samples, { flag: "samples", default: 1000, min: 1 });
  const numWarmup = intFlag(values.warmup, { flag: "warmup", default: 1000, min: 0 });
  const numChains = intFlag(values.chains, { flag: "chains", default: 4, min: 1, max: 10_000 });
  // One worker per core, capped by the number of chains; a single chain stays in this thread.
  const cores = navigator.hardwareConcurrency ?? 1;
  const perCore = Math.min(cores, numChains);
  let numWorkers = intFlag(values.workers, {
    flag: "workers",
    default: perCore > 1 ? perCore : 0,
    min: 0,
    max: 256,
  });
  const seed = intFlag(values.seed, { flag: "seed", default: 1, min: 0 });
  const format = (values.format as string | undefined) ?? "tallmc";
  if (format !== "tallmc" && format !== "cmdstan") {
    throw new CliUsageError(`--format must be tallmc or cmdstan, got ${JSON.stringify(format)}`);
  }
  if (values.format !== undefined && values.out === undefined) {
    throw new CliUsageError(`--format ${format} needs --out (the draws are written only there)`);
  }
  if (format === "cmdstan" && numChains > _MAX_CMDSTAN_FILES) {
    throw new CliUsageError(
      `--format cmdstan writes one file per chain, open at once: at most ${_MAX_CMDSTAN_FILES} ` +
        `chains, got --chains ${numChains} (use the default format)`,
    );
  }
  const thin = intFlag(values.thin, { flag: "thin", default: 1, min: 1 });
  _checkMemory({ numChains, numWarmup, numSamples, thin, dim: 1 }, values, false);
  _checkOptionBounds(samplerOptions, description);
  // Every flag is checked; now the files: --out must not be an input, by
  // device and inode (a symlink or hard link to --data is the same file).
  const outPath = values.out === undefined ? undefined : resolveUserPath(values.out as string);
  // A database URL or a DuckDB file: the rows stay in the engine or are read
  // into a private CSV file (./sample_data.ts).
  const dbUrl = typeof values.data === "string" &&
      (/^(postgres(ql)?|clickhouses?):\/\//i.test(values.data) || isDuckDbData(values.data))
    ? values.data
    : null;
  let dataPath = dbUrl !== null
    ? ""
    : values.data === "-"
    ? "-"
    : resolveUserPath(values.data as string); // - : stdin
  if (outPath !== undefined) {
    const inputs = dataPath === "-" || dbUrl !== null ? [] : [{ path: dataPath, flag: "--data" }];
    if (typeof values["prior-file"] === "string") {
      inputs.push({ path: resolveUserPath(values["prior-file"]), flag: "--prior-file" });
    }
    if (userFamily !== null) {
      inputs.push({ path: resolveUserPath(userFamily.label), flag: "--family-source" });
    }
    if (dbUrl !== null && isDuckDbData(dbUrl)) {
      inputs.push({ path: duckDbDataOf(dbUrl, resolveUserPath).path, flag: "--data" });
    }
    const targets = format === "cmdstan"
      ? Array.from({ length: numChains }, (_, c) => cmdstanChainPath(outPath, c))
      : [outPath];
    for (const target of targets) {
      refuseSameFile({ path: target, flag: "--out" }, inputs);
      checkWritable(target, "--out");
    }
  }
  // Chains in this thread need the signal watcher's worker (a synchronous
  // loop never runs this thread's listeners): it loads while the data are
  // read, and listens from _StopWatch.start on. Chains in workers are watched
  // from this thread, which awaits them (no `new Worker` blocking it here).
  const watcher = numWorkers === 0 ? _StopWatch.spawn() : undefined;
  cleanups.push(() => watcher?.terminate());
  // HMC-ECS chains share one centring (below) whose full-data passes run on
  // numWorkers threads: the pass workers' modules load while the data are read.
  // A row store's rows stay in the file (./row_store_data.ts): its centring
  // is the engine's, made by the shard workers' passes (below).
  const rowStoreData = dbUrl === null && isRowStoreFile(dataPath);
  const shareCentring = samplerName === "hmc-ecs" && dbUrl === null && !rowStoreData &&
    numChains > 1 && values.init === undefined && userFamily === null;
  // They become chain workers after it (below), so they load the chain modules too.
  if (shareCentring && numWorkers > 1) {
    cleanups.push(prestartPassWorkers(numWorkers - 1, samplerName));
  }
  const source = await openSampleData(values, {
    dbUrl,
    dataPath,
    samplerName,
    choice,
    numWorkers,
    cleanups,
    rowStoreData,
  });
  const { dbModel, dataLabel, remove: dbRemove, rowStore } = source;
  // Rows outside this process: in a database, or in a row store's file.
  const external: DatabaseGlmModel | ShardedGlmModel | null = dbModel ?? rowStore?.model ?? null;
  phaseMark("flags-checked");
  dataPath = source.dataPath;
  // The rows are fetched by key over one connection, or streamed by the
  // shard workers: the chains run in this thread.
  if (external !== null) numWorkers = 0;

  // Workers read the data in place: it must sit in a shared memory.
  const arena = loadCore({ shared: numWorkers > 0 });
  let model: GlmModel | DatabaseGlmModel | ShardedGlmModel | UserGlmModel;
  let dataWarnings: readonly string[] = [];
  if (external !== null) {
    model = external;
    if (!values.quiet) {
      for (const line of rowStore?.priorLines ?? []) console.log(`prior: ${line}`);
    }
  } else {try {
      const built = userFamily !== null
        ? await userFamilyModelFromFlags(arena, dataPath, values, userFamily, resolveUserPath)
        : await modelFromFlags(arena, dataPath, values, {
          choice,
          storage: values.f32 ? "f32" : "f64",
          resolvePath: resolveUserPath,
        });
      if (!values.quiet) {
        for (const line of built.priorLines ?? []) console.log(`prior: ${line}`);
      }
      for (const note of built.notes) console.error(`tallmc: note: ${note}`);
      dataWarnings = built.warnings;
      model = built.model;
    } catch (e) {
      if (e instanceof CliUsageError) throw e;
      const msg = _userMessage((e as Error).message, null).replaceAll(dataPath, dataLabel) +
        dataTooLargeHint(e, values.f32 === true);
      throw new CliUsageError(
        msg.includes(dataLabel) ? `--data: ${msg}` : `--data ${dataLabel}: ${msg}`,
      );
    } finally {
      await dbRemove();
    }}
  phaseMark("data-loaded");
  // The shared centring's pass threads take up the rows while this thread
  // builds the sampler and starts the chain workers (awaited below).
  const centringPasses = shareCentring && external === null
    ? sharedCentringPasses(model, numWorkers)
    : null;
  if (centringPasses !== null) cleanups.push(() => void centringPasses.then((p) => p?.close()));
  for (const w of dataWarnings) console.error(`tallmc: warning: --data: ${w}`);
  _checkMemory({ numChains, numWarmup, numSamples, thin, dim: model.dim }, values, true);
  const init = initFromFlag(values.init, {
    sampler: samplerName,
    parameterNames: model.parameterNames,
    numChains,
  });
  Object.assign(samplerOptions, init.samplerOptions);
  if (external !== null && samplerName === "hmc-ecs") {
    // One centring in the engine for every chain: the SQL (or streamed)
    // passes do not grow with --chains.
    const { databaseCentring, laplaceStarts } = await import("./database_model.ts");
    let shared;
    try {
      // A row store's passes are the shard workers' (seconds at 10⁸ rows):
      // the Newton tolerance and fraction of B̂'s rows of a chain that
      // centres itself (HMC-ECS's own defaults), and a first pass without B.
      const own = resolveHmcEcsOptions(external, samplerOptions as HmcEcsOptions);
      const fraction = hessianSampleFraction(external, own.hessianFraction);
      shared = databaseCentring(
        external,
        dbModel !== null ? {} : {
          tolerance: own.recenterTolerance,
          quasiNewtonFirst: true,
          hessianSample: { stride: Math.max(1, Math.floor(1 / fraction)), seed: seed >>> 0 },
          // The subset in runs of 64 rows (8 KB at d = 30, f32): one read each.
          subsetRun: 64,
        },
      );
    } catch (e) {
      const msg = _userMessage((e as Error).message, null);
      throw new CliUsageError(
        msg.includes(dataLabel)
          ? `--data: centring: ${msg}`
          : `--data ${dataLabel}: centring: ${msg}`,
      );
    }
    samplerOptions.centring = shared.centring;
    samplerOptions.startAtThetaStar = false;
    if (values.init === undefined) {
      init.driver.initialPositions = laplaceStarts(shared, numChains, seed);
    }
    if (!values.quiet) {
      console.log(
        `centring: ${shared.numPasses} full-data passes ${
          dbModel !== null ? "in SQL" : "streamed from the row store"
        }${
          shared.converged ? "" : " (Newton stopped at its limit; θ* is the last point summed)"
        }, shared by ${numChains} chain${numChains === 1 ? "" : "s"}`,
      );
    }
  }
  let sampler;
  try {
    sampler = description.build(model, samplerOptions, { seed, numWarmup, numSamples });
  } catch (e) {
    throw new CliUsageError(
      `--sampler ${samplerName} cannot run on this data: ${
        _userMessage((e as Error).message, description)
      }`,
    );
  }

  // The chains start on one worker fewer than there are cores: the engine's
  // compilers, busy while each new worker's chain code warms up, and this
  // thread keep a core. sampleParallel adds workers, up to --workers, while
  // the run has more than RAMP_SECONDS left (samplers/parallel.ts). The
  // shared centring's pass workers become the first chain workers once it is
  // done (one isolate, its start-up, module loading and compiled code serve
  // both); fresh ones, prestarted now, make up the rest of the first ones and
  // load their modules while this thread builds the sampler.
  const firstChainWorkers = Math.max(1, Math.min(numWorkers, numChains, cores - 1));
  const handedOver = centringPasses !== null ? Math.min(numWorkers - 1, firstChainWorkers) : 0;
  if (numWorkers > 0) {
    cleanups.push(prestartChainWorkers(firstChainWorkers - handedOver, samplerName));
  }
  if (
    samplerName === "hmc-ecs" && external === null && numChains > 1 && values.init === undefined
  ) {
    // One initial centring for all the chains (they would each make the same
    // passes), its full-data passes on numWorkers threads (the chain workers
    // wait for it).
    let shared;
    const passes = centringPasses !== null ? await centringPasses : null;
    try {
      shared = sharedHmcEcsCentring(model, { ...samplerOptions, numWarmup }, {
        seed,
        numChains,
        passes: passes ?? undefined,
      });
    } catch (e) {
      if (!(e instanceof RangeError || e instanceof TypeError)) throw e;
      throw new CliUsageError(
        `--sampler ${samplerName} cannot start: ${_userMessage(e.message, description)}${
          _extremeColumnsHint(dataWarnings)
        }`,
      );
    } finally {
      if (passes !== null) {
        cleanups.push(adoptChainWorkers(passes.closeHandingOver(handedOver), samplerName));
      }
    }
    if (shared !== null) {
      Object.assign(samplerOptions, shared.options);
      init.driver.initialPositions = shared.starts;
      sampler = description.build(model, samplerOptions, { seed, numWarmup, numSamples });
      if (!values.quiet) {
        console.log(
          `centring: ${shared.numPasses} full-data passes, shared by ${numChains} chains`,
        );
      }
    }
    phaseMark("centring-shared");
  }
  phaseMark("sampler-built");
  const extraNames = samplerName === "hmc-ecs" && samplerOptions.variant === "signed"
    ? ["sign"]
    : [];
  // From here on SIGINT / SIGTERM stop the run and keep its draws.
  const watch = numWorkers > 0 && "spec" in modelSpecOf(model)
    ? _StopWatch.onThisThread()
    : await _StopWatch.start(watcher);
  cleanups.push(() => watch.close());
  phaseMark("stop-watch-started");
  let writer: DrawsOutput | null = null;
  try {
    writer = outPath === undefined
      ? null
      : format === "cmdstan"
      ? CmdStanDrawsWriter.open(outPath, {
        numChains,
        parameterNames: model.parameterNames,
        config: [
          ["model", "glm"],
          ["family", (values.family ?? values["family-source"]) as string],
          ["data_file", dataLabel],
          ["method", "sample"],
          ["algorithm", samplerName],
          ...Object.entries(samplerOptions)
            .filter(([, v]) => ["number", "string", "boolean"].includes(typeof v))
            .map(([k, v]) => [k, String(v)] as [string, string]),
          ["num_samples", numSamples],
          ["num_warmup", numWarmup],
          ["save_warmup", 0],
          ["thin", thin],
          ["num_chains", numChains],
          ["seed", seed],
        ],
      })
      : DrawsFileWriter.open(outPath, {
        parameterNames: model.parameterNames,
        extraNames,
        drawsPerChain: Math.ceil(numSamples / thin),
      });
  } catch (e) {
    watch.close();
    throw new CliUsageError(`--out ${outPath} cannot be written: ${(e as Error).message}`);
  }
  const bar = values.quiet ? null : new ChainProgress({
    label: samplerName,
    numChains,
    tty: Deno.stderr.isTerminal(),
  });
  // Iterations done per chain (draws kept, when there is no --out).
  const done = new Map<number, number>();
  // In a synchronous run a callback stops the chain by throwing (the driver
  // catches it); from a worker's message it must not throw.
  let mayThrow = true;
  const checkStop = () => {
    if (writer?.failure != null) watch.trigger();
    if (mayThrow && watch.stopped) throw new _Stopped();
  };
  let result: SamplingResult | null = null;
  const preparer = _summaryPreparer(numChains, numWorkers, Math.ceil(numSamples / thin));
  try {
    const driver = {
      seed,
      numSamples,
      numWarmup,
      thin,
      ...init.driver,
      onProgress: (chain: number, it: number, total: number) => {
        if (it === 1 || it === numWarmup || it === total) {
          phaseMark(
            `chain${chain}-${it === 1 ? "iteration1" : it === total ? "end" : "warmup-end"}`,
          );
        }
        if (it === total) preparer.chainEnded();
        done.set(chain, it);
        bar?.update(chain, it, total);
        checkStop();
      },
      onDraw: writer === null ? undefined : (
        chain: number,
        k: number,
        pos: Float64Array,
        info: object,
      ) => {
        writer!.writeDraw(chain, k, pos, info);
        checkStop();
      },
    };
    if (numWorkers > 0) {
      // The chain workers stay until the output is printed (holdChainWorkers
      // says why), and until the process exits when it exits right after.
      const held: Worker[] = [];
      holdChainWorkers(held);
      cleanups.push(() => {
        holdChainWorkers(null);
        if (!processExit.afterCommand) { for (const w of held.splice(0)) w.terminate(); }
      });
      const run = sampleParallel(model, {
        sampler: samplerName,
        ...samplerOptions,
        ...driver,
        numChains,
        workers: numWorkers,
        initialWorkers: firstChainWorkers,
      }, description);
      mayThrow = false; // the synchronous part (and any in-thread fallback) is over
      run.catch(() => {}); // a run abandoned on a stop may fail later, unobserved
      const parallel = await Promise.race([run, watch.promise.then(() => null)]);
      if (parallel !== null) {
        if (parallel.parallel.note !== null && !values.quiet) {
          console.error(`tallmc: note: --workers ${numWorkers}: ${parallel.parallel.note}`);
        }
        result = parallel;
      } else {
        // Let draws already posted by the workers reach the file.
        await new Promise((r) => setTimeout(r, 20));
      }
    } else {
      result = _sampleInThread(sampler, model, numChains, driver, () => watch.stopped);
    }
  } catch (e) {
    // A chain could not start (e.g. a non-finite log density at θ₀): say
    // which columns the loader found extreme, the likely cause.
    preparer.cancel();
    bar?.done();
    watch.close();
    const kept = writer === null ? "" : _keepOrDiscard(writer);
    if (!(e instanceof RangeError || e instanceof TypeError)) {
      if (kept !== "") console.error(`tallmc: note: ${kept}`);
      // The row source's query failed (it names the table and the server).
      if (external !== null) throw new CliUsageError(`--data: ${(e as Error).message}`);
      throw e;
    }
    throw new CliUsageError(
      `--sampler ${samplerName} cannot start: ${_userMessage(e.message, description)}${
        _extremeColumnsHint(dataWarnings)
      }${kept === "" ? "" : `; ${kept}`}`,
    );
  }
  phaseMark("chains-done");
  preparer.cancel();
  bar?.done();
  watch.close();
  if (watch.stopped || result === null) {
    return _finishStopped(writer, watch.signal, done, { numChains, numWarmup, thin });
  }
  let code = 0;
  console.log(
    `${samplerName}: ${numChains} chain(s) × ${result.numDraws} draws, n = ${model.numRows}, d = ${model.dim}, backend ${arena.backend}`,
  );
  if (dbModel !== null) {
    const f = dbModel.fetches;
    console.log(
      `database: ${f.numPasses} full-data passes in SQL, ${f.numQueries} row queries (${f.numRows} rows fetched by key)`,
    );
  } else if (rowStore !== null) {
    console.log(`row store: ${rowStore.model.numPasses} full-data passes streamed from the file`);
  }
  if (writer !== null) {
    try {
      if (writer instanceof CmdStanDrawsWriter) {
        for (const c of result.chains) writer.writeAdaptation(c.chainId, c.tuning);
      }
      writer.commit();
    } catch (e) {
      throw new CliUsageError(
        `--out ${outPath}: the draws could not be renamed into place: ${(e as Error).message}`,
      );
    }
    if (writer.failure !== null) code = _reportWriteFailure(writer, numChains);
    else console.log(`draws written to ${outPath} (${writer.rowsOnDisk} rows)`);
  }
  phaseMark("draws-written");
  code = Math.max(code, _report(result, description, dataWarnings));
  const rows = _printSummary(result);
  phaseMark("summary-printed");
  const checked = printVerdict(result, rows, {
    sampler: samplerName,
    strict: Boolean(values.strict),
  });
  phaseMark("verdict-printed");
  return code !== 0 ? code : checked.code;
}
