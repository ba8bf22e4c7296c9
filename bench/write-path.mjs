// The whole write path as a client pays for it, against a raw dispatch measured in the same run.
//
//   pnpm build && node bench/write-path.mjs
//
//   - subject: `t3_escrever_thread_title` called by an MCP SDK client over stdio on the spawned
//     `t3-connector-write bridge` (built bin), which relays to the gate (started in this process
//     as the CLI starts it, from a write.json on disk): lease checks → journal (reserve,
//     uncertain, completed) → fresh reads → the one send to the simulator; answered `completed`;
//   - baseline: `dispatchCommand` of the same kind of command to the same simulator over an
//     already open socket.
// Samples are interleaved; ≥ 100 of each. Target (ADR 0072): `pathToFloorP50` = subject p50 /
// `floorP50Ms` ≤ 2, the floor below measured in the same run; `pathToRawP50` and `overheadP50Ms`
// (subject p50 − baseline p50) are printed as figures, no longer targets: the raw send alone leaves
// out the durable steps every write must wait for, which the disk's load moves by 2×. The lease is
// granted with the gate's own keeper, as bench/gate-dispatch.mjs does (the passkey ceremony is not
// what is measured).
// Where the time goes, interleaved in the same loop (figures, not targets): `relayP50Ms`, the same
// write as one `POST /relay` to the gate (no MCP, no bridge); `engineP50Ms`, the same write handed
// to the gate's engine in process (no HTTP, no audit line); `durableWriteP50Ms`, one fsync'd
// rewrite of a small file in the gate's state directory (temp file, fsync, rename, directory
// fsync: what one durable journal step costs on this disk now). `floorP50Ms` is what no write
// path can go under here: the journal's durable steps before the answer and the audit line's
// fsync, plus the one send (raw p50).
// `journalCycleP99Ms` (target ≤ 15 ms) is the journal's full write cycle at 10,000 records
// (bench/lib/journal-cycle.mjs, ≥ 100 samples), measured after the write path in the same run.
// Prints a table on stderr, then one JSON line `{"bench":"write-path",...}`.
import { createHash, randomUUID } from "node:crypto";
import { mkdtemp, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { Agent } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { measureJournalCycle } from "./lib/journal-cycle.mjs";
import { dist, root, sdk } from "./lib/read-setup.mjs";
import { relayPost } from "./lib/relay-post.mjs";
import { percentile, round } from "./lib/stats.mjs";
import { allPass, atMost, finishBench } from "./lib/verdict.mjs";

const SAMPLES = 200;
const MIN_SAMPLES = 100;
const WARMUP = 20;
const TIME_BUDGET_MS = 60_000;
const TARGET_PATH_TO_FLOOR_P50 = 2;
/**
 * Durable steps a write waits for before its answer: the journal's `uncertain` before the send (one
 * rewrite: two fsyncs) and the audit line (one fsync, counted as half a rewrite); `completed` is
 * written while the answer goes out (ADR 0062). Kept in step with the journal and the relay.
 */
const DURABLE_REWRITES_BEFORE_ANSWER = 1.5;
const TARGET_JOURNAL_CYCLE_P99_MS = 15;
const JOURNAL_RECORDS = 10_000;
const JOURNAL_SAMPLES = 200;
const PROJECT = "bench-project";
const THREAD = "bench-thread";
const BIN = join(root, "packages/write-gate/bin/t3-connector-write.js");

const [
  { startSimulator },
  { writeTokenFile, loadWriteConfig },
  { EnvironmentRegistry, findFreePort, OPERATE_SCOPES },
  actions,
  { startGate },
  { registryInventory, scopeFingerprint },
  { Client },
  { StdioClientTransport },
  { CAPABILITY_FILE },
  { RELAY_HEADER },
] = await Promise.all([
  dist("t3-sim", "index.js"),
  dist("core", "config/index.js"),
  dist("core", "environments/index.js"),
  dist("write-engine", "actions/index.js"),
  dist("write-gate", "process/index.js"),
  dist("write-gate", "approval/index.js"),
  sdk("client/index.js"),
  sdk("client/stdio.js"),
  dist("write-gate", "relay/index.js"),
  dist("write-engine", "relay-contract/index.js"),
]);

const dir = await mkdtemp(join(tmpdir(), "t3-write-path-bench-"));
const sim = await startSimulator({ environments: [{ alias: "alpha", seed: "empty" }], clock: "real" });
const alpha = sim.environment("alpha");
alpha.model.addProject({ id: PROJECT, title: "bench", workspaceRoot: "/srv/bench" });
alpha.model.addThread({ id: THREAD, projectId: PROJECT, state: "completed" });

let gate;
let registry;
let client;
let exitCode = 0;
const samples = { path: [], raw: [], relay: [], engine: [], durable: [] };
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
try {
  const tokenFile = join(dir, "tokens", "alpha-write");
  await writeTokenFile(tokenFile, alpha.operateToken);
  const configPath = join(dir, "write.json");
  const document = {
    port: await findFreePort(),
    stateDir: join(dir, "state"),
    environments: { alpha: { environmentId: alpha.environmentId, url: alpha.url, tokenFile } },
  };
  await writeFile(configPath, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
  const config = await loadWriteConfig({ path: configPath });
  gate = await startGate({
    config,
    log: () => undefined,
    handleSignals: false,
    verifyWorkspace: async (_thread, workspace) => workspace,
  });

  registry = new EnvironmentRegistry({ environments: config.environments, requiredScopes: OPERATE_SCOPES });
  const outcomes = await registryInventory(registry)(undefined);
  const scope = {
    scopeVersion: 2,
    runtimeMode: "full-access",
    environments: outcomes.filter((outcome) => outcome.ok).map((outcome) => outcome.grant),
  };
  const { leaseId } = gate.lease.grant({
    scope,
    scopeFingerprint: scopeFingerprint(scope),
    credentialId: "bench",
  });
  const rpc = await (await registry.resolve("alpha").connect()).rpc();

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "bridge"],
    env: { ...process.env, T3_CONNECTOR_WRITE_CONFIG: configPath },
    stderr: "pipe",
  });
  client = new Client({ name: "write-path-bench", version: "0.0.0" });
  await client.connect(transport);

  const input = (i) => ({ threadId: THREAD, title: `bench title ${i}` });
  const viaBridge = async (i) => {
    const answer = await client.callTool({
      name: "t3_escrever_thread_title",
      arguments: { leaseId, environment: "alpha", operationId: `bench-${randomUUID()}`, input: input(i) },
    });
    if (answer.isError || answer.structuredContent?.state !== "completed") {
      throw new Error(`the bridge answered ${JSON.stringify(answer).slice(0, 400)}`);
    }
  };
  const raw = async (i) => {
    const key = createHash("sha256").update(randomUUID()).digest("hex");
    const prepared = actions.prepareAction("thread.title", input(i), key);
    await rpc.dispatchCommand({ ...prepared.payload.command });
  };

  const capability = await readFile(join(config.stateDir, CAPABILITY_FILE), "utf8");
  const target = { port: gate.port, capability, agent, header: RELAY_HEADER };
  const write = (i) => ({
    leaseId,
    environment: "alpha",
    operationId: `bench-${randomUUID()}`,
    action: "thread.title",
    input: input(i),
  });
  const viaRelay = async (i) => {
    const answer = await relayPost({ op: "dispatch", ...write(i) }, target);
    if (answer.state !== "completed") throw new Error(`the relay answered ${JSON.stringify(answer)}`);
  };
  const viaEngine = async (i) => {
    const answer = await gate.engine.dispatch({ ...write(i), lease: gate.lease.facts(leaseId) });
    if (answer.state !== "completed") throw new Error(`the engine answered ${JSON.stringify(answer)}`);
  };
  const durableFile = join(config.stateDir, "bench-durable.json");
  const durableWrite = async (i) => {
    const temp = `${durableFile}.tmp`;
    const handle = await open(temp, "w", 0o600);
    try {
      await handle.writeFile(JSON.stringify({ i, state: "completed" }));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, durableFile);
    const directory = await open(config.stateDir, "r");
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  };
  const subjects = [
    ["path", viaBridge],
    ["raw", raw],
    ["relay", viaRelay],
    ["engine", viaEngine],
    ["durable", durableWrite],
  ];

  const started = performance.now();
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    if (i >= WARMUP + MIN_SAMPLES && performance.now() - started > TIME_BUDGET_MS) break;
    for (const [name, run] of subjects) {
      const t = performance.now();
      await run(i);
      if (i >= WARMUP) samples[name].push(performance.now() - t);
    }
  }
} catch (error) {
  process.stderr.write(`write-path failed: ${error?.stack ?? error}\n`);
  exitCode = 1;
} finally {
  agent.destroy();
  await client?.close();
  await gate?.close();
  await registry?.close();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
}
if (exitCode !== 0) process.exit(exitCode);

// The journal's own write cycle (reserve → uncertain → completed) at 10,000 retained records,
// from the journal work's shared measurement (bench/lib/journal-cycle.mjs).
const journalCycle = await measureJournalCycle({ records: JOURNAL_RECORDS, samples: JOURNAL_SAMPLES });

const path = { p50: percentile(samples.path, 50), p99: percentile(samples.path, 99) };
const rawStats = { p50: percentile(samples.raw, 50), p99: percentile(samples.raw, 99) };
const overheadP50Ms = path.p50 - rawStats.p50;
const pathToRawP50 = path.p50 / rawStats.p50;
const p50 = (name) => round(percentile(samples[name], 50));
const durableWriteP50Ms = p50("durable");
const floorP50Ms = round(durableWriteP50Ms * DURABLE_REWRITES_BEFORE_ANSWER + rawStats.p50);
const pathToFloorP50 = path.p50 / floorP50Ms;
process.stderr.write(
  `write-path: ${samples.path.length} samples each\n` +
    `  MCP client → bridge → gate → journal → send   p50 ${path.p50.toFixed(2)} ms  p99 ${path.p99.toFixed(2)} ms\n` +
    `  raw dispatchCommand                          p50 ${rawStats.p50.toFixed(2)} ms  p99 ${rawStats.p99.toFixed(2)} ms\n` +
    `  path / raw p50 ${pathToRawP50.toFixed(2)}×, overhead p50 ${overheadP50Ms.toFixed(2)} ms\n` +
    `  where it goes, p50: POST /relay ${p50("relay")} ms, engine in process ${p50("engine")} ms, ` +
    `one durable rewrite ${durableWriteP50Ms} ms; floor (${DURABLE_REWRITES_BEFORE_ANSWER} rewrites + raw) ${floorP50Ms} ms ` +
    `= ${(floorP50Ms / rawStats.p50).toFixed(2)}× raw\n` +
    `  path / floor p50 ${pathToFloorP50.toFixed(2)}× (target ≤ ${TARGET_PATH_TO_FLOOR_P50}×)\n` +
    `  journal write cycle at ${journalCycle.records} records  p50 ${journalCycle.journalCycleP50Ms} ms  p99 ${journalCycle.journalCycleP99Ms} ms ` +
    `(${journalCycle.samples} samples, ${journalCycle.fsyncsPerWrite} fsyncs per write; target ≤ ${TARGET_JOURNAL_CYCLE_P99_MS} ms)\n`,
);
const checks = [
  atMost("pathToFloorP50", round(pathToFloorP50), TARGET_PATH_TO_FLOOR_P50),
  atMost("journalCycleP99Ms", journalCycle.journalCycleP99Ms, TARGET_JOURNAL_CYCLE_P99_MS),
];
const report = {
  bench: "write-path",
  samples: samples.path.length,
  pathP50Ms: round(path.p50),
  pathP99Ms: round(path.p99),
  rawP50Ms: round(rawStats.p50),
  rawP99Ms: round(rawStats.p99),
  pathToRawP50: round(pathToRawP50),
  overheadP50Ms: round(overheadP50Ms),
  pathToFloorP50: round(pathToFloorP50),
  targetPathToFloorP50: TARGET_PATH_TO_FLOOR_P50,
  relayP50Ms: p50("relay"),
  engineP50Ms: p50("engine"),
  durableWriteP50Ms,
  floorP50Ms,
  floorToRawP50: round(floorP50Ms / rawStats.p50),
  journalCycleP99Ms: journalCycle.journalCycleP99Ms,
  journalCycleP50Ms: journalCycle.journalCycleP50Ms,
  journalCycleSamples: journalCycle.samples,
  journalRecords: journalCycle.records,
  fsyncsPerWrite: journalCycle.fsyncsPerWrite,
  targetJournalCycleP99Ms: TARGET_JOURNAL_CYCLE_P99_MS,
  checks,
  pass: samples.path.length >= MIN_SAMPLES && allPass(checks),
  loadavg1m: round(loadavg()[0] ?? 0),
};
finishBench(report);
