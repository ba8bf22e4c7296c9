// A write's cost against the size of its environment: the same write (`thread.title` through the
// whole engine — lease checks → journal reserve/uncertain/completed → fresh reads → the one send)
// in an environment of 2,500 threads and in one of 20,000, interleaved in the same run.
//
//   pnpm build && node bench/write-scale.mjs
//
// Target: write p50 at 20,000 / write p50 at 2,500 ≤ 1.2 (ADR 0026: the pre-write reads take the
// referenced thread by id, never the whole shell). Beside it, measured in the same run, today's
// figure of what the engine used to read before each write (twice: scope check, then preflight):
// the whole shell over HTTP at both sizes. Prints a table on stderr, then one JSON line
// `{"bench":"write-scale",...}`.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { dist } from "./lib/read-setup.mjs";
import { percentile, round } from "./lib/stats.mjs";
import { allPass, atMost, finishBench } from "./lib/verdict.mjs";

const SIZES = { small: 2_500, large: 20_000 };
const SAMPLES = 120;
const MIN_SAMPLES = 60;
const WARMUP = 15;
const SHELL_SAMPLES = 5;
const TIME_BUDGET_MS = 90_000;
const TARGET_RATIO = 1.2;
const PROJECT = "bench-project";
const THREAD = "bench-thread";

const [
  { startSimulator },
  { seedBulk },
  { writeTokenFile },
  { EnvironmentRegistry, OPERATE_SCOPES },
  { systemClock },
  { createDispatcher },
  { openJournal },
  { ACTION_IDS, parseLeaseScope },
] = await Promise.all([
  dist("t3-sim", "index.js"),
  dist("t3-sim", "model/index.js"),
  dist("core", "config/index.js"),
  dist("core", "environments/index.js"),
  dist("core", "index.js"),
  dist("write-engine", "dispatch/index.js"),
  dist("write-engine", "journal/index.js"),
  dist("write-engine", "actions/index.js"),
]);

const dir = await mkdtemp(join(tmpdir(), "t3-write-scale-bench-"));
const sim = await startSimulator({
  environments: Object.keys(SIZES).map((alias) => ({ alias, seed: "empty", shellSuppression: false })),
  clock: "real",
});
let registry;
let journal;
let exitCode = 0;
const samples = { small: [], large: [] };
const shell = { small: [], large: [] };
try {
  const configs = [];
  for (const [alias, threads] of Object.entries(SIZES)) {
    const env = sim.environment(alias);
    env.model.addProject({ id: PROJECT, title: "bench", workspaceRoot: "/srv/bench" });
    env.model.addThread({ id: THREAD, projectId: PROJECT, state: "completed" });
    seedBulk(env.model, { projects: 20, threads: threads - 1 });
    const tokenFile = join(dir, "tokens", `${alias}-write`);
    await writeTokenFile(tokenFile, env.operateToken);
    configs.push({
      alias,
      environmentId: env.environmentId,
      transport: { kind: "url", url: env.url },
      tokenFile,
    });
  }
  registry = new EnvironmentRegistry({ environments: configs, requiredScopes: OPERATE_SCOPES });
  journal = await openJournal({ stateDir: join(dir, "state") });
  // A lease over both environments with every action (the gate's keeper is not what is measured).
  const scope = parseLeaseScope({
    scopeVersion: 2,
    runtimeMode: "full-access",
    environments: configs
      .map((config) => ({
        alias: config.alias,
        environmentId: config.environmentId,
        label: config.alias,
        destination: `t3://${config.environmentId}`,
        projects: [{ id: PROJECT, name: "bench", directory: "/srv/bench", workspaceRoots: ["/srv/bench"] }],
        actions: [...ACTION_IDS].sort(),
        readProjectIds: [PROJECT],
      }))
      .sort((a, b) => (a.alias < b.alias ? -1 : 1)),
  });
  const lease = {
    leaseId: "bench-lease",
    scope,
    launched: new Set(),
    ended: new AbortController().signal,
    deadline: { monotonic: Number.POSITIVE_INFINITY, wall: Number.POSITIVE_INFINITY },
  };
  const dispatcher = createDispatcher({
    registry,
    journal,
    clock: systemClock,
    channel: "bench|write-scale",
    verifyWorkspace: async (_target, path) => path,
  });
  const connected = {};
  for (const alias of Object.keys(SIZES)) connected[alias] = await registry.resolve(alias).connect();

  const write = async (alias, i) => {
    const result = await dispatcher.dispatch({
      leaseId: "bench-lease",
      lease,
      environment: alias,
      operationId: `bench-${randomUUID()}`,
      action: "thread.title",
      input: { threadId: THREAD, title: `bench title ${i}` },
    });
    if (result.state !== "completed") throw new Error(`the engine answered ${JSON.stringify(result)}`);
  };
  const timed = async (fn) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };

  const started = performance.now();
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    if (i >= WARMUP + MIN_SAMPLES && performance.now() - started > TIME_BUDGET_MS) break;
    // Alternate which size goes first, so neither always follows the other's garbage.
    const order = i % 2 === 0 ? ["small", "large"] : ["large", "small"];
    for (const alias of order) {
      const ms = await timed(() => write(alias, i));
      if (i >= WARMUP) samples[alias].push(ms);
    }
  }
  for (let i = 0; i < SHELL_SAMPLES; i++) {
    for (const alias of Object.keys(SIZES)) {
      shell[alias].push(await timed(() => connected[alias].http.getShell()));
    }
  }
} catch (error) {
  process.stderr.write(`write-scale failed: ${error?.stack ?? error}\n`);
  exitCode = 1;
} finally {
  await registry?.close();
  await journal?.close();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
}
if (exitCode !== 0) process.exit(exitCode);

const p50 = (list) => percentile(list, 50);
const writeSmall = p50(samples.small);
const writeLarge = p50(samples.large);
const ratio = writeLarge / writeSmall;
const shellSmall = p50(shell.small);
const shellLarge = p50(shell.large);
process.stderr.write(
  `write-scale: ${samples.small.length} writes per size\n` +
    `  write (engine, thread read by id)  ${SIZES.small} threads p50 ${writeSmall.toFixed(2)} ms   ` +
    `${SIZES.large} threads p50 ${writeLarge.toFixed(2)} ms   ratio ${ratio.toFixed(2)} (target ≤ ${TARGET_RATIO})\n` +
    `  today's pre-write read (whole shell, read twice per write before ADR 0026)\n` +
    `                                      ${SIZES.small} threads p50 ${shellSmall.toFixed(2)} ms   ` +
    `${SIZES.large} threads p50 ${shellLarge.toFixed(2)} ms   ratio ${(shellLarge / shellSmall).toFixed(2)}\n`,
);
const checks = [atMost("writeP50Ratio20kOver2500", round(ratio), TARGET_RATIO)];
finishBench({
  bench: "write-scale",
  samples: samples.small.length,
  threadsSmall: SIZES.small,
  threadsLarge: SIZES.large,
  writeP50MsSmall: round(writeSmall),
  writeP50MsLarge: round(writeLarge),
  writeP99MsSmall: round(percentile(samples.small, 99)),
  writeP99MsLarge: round(percentile(samples.large, 99)),
  ratio: round(ratio),
  targetRatio: TARGET_RATIO,
  shellReadP50MsSmall: round(shellSmall),
  shellReadP50MsLarge: round(shellLarge),
  shellReadRatio: round(shellLarge / shellSmall),
  checks,
  pass: samples.small.length >= MIN_SAMPLES && allPass(checks),
  loadavg1m: round(loadavg()[0] ?? 0),
});
