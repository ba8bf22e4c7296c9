// Write-gate overhead: relay → lease checks → journal (reserve, uncertain, completed: three fsynced
// rewrites) → fresh reads → the one send, against a raw `dispatchCommand` of the same command to
// the same simulator over an already open socket, interleaved in the same run.
//
//   pnpm build && node bench/gate-dispatch.mjs
//
// One gate sample = one `POST /relay {op:"dispatch"}` (keep-alive HTTP on 127.0.0.1) with a fresh
// operationId, answered `completed`. Target: overhead p50 (gate p50 − raw p50) ≤ 20 ms.
// Prints a table, then one JSON line `{"bench":"gate-dispatch",...}`.
import { createHash, randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { Agent } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { dist } from "./lib/read-setup.mjs";
import { relayPost } from "./lib/relay-post.mjs";
import { percentile, round } from "./lib/stats.mjs";
import { allPass, atMost, finishBench } from "./lib/verdict.mjs";

const MAX_ITERATIONS = 400;
const WARMUP_ITERATIONS = 20;
const TIME_BUDGET_MS = 20_000;
const TARGET_OVERHEAD_MS = 20;
const PROJECT = "bench-project";
const THREAD = "bench-thread";

const [
  { startSimulator },
  { writeTokenFile },
  { EnvironmentRegistry, findFreePort, OPERATE_SCOPES },
  actions,
] = await Promise.all([
  dist("t3-sim", "index.js"),
  dist("core", "config/index.js"),
  dist("core", "environments/index.js"),
  dist("write-engine", "actions/index.js"),
]);
const [{ startGate }, { registryInventory, scopeFingerprint }, { CAPABILITY_FILE }, { RELAY_HEADER }] =
  await Promise.all([
    dist("write-gate", "process/index.js"),
    dist("write-gate", "approval/index.js"),
    dist("write-gate", "relay/index.js"),
    dist("write-engine", "relay-contract/index.js"),
  ]);

const root = await mkdtemp(join(tmpdir(), "t3-gate-bench-"));
const sim = await startSimulator({ environments: [{ alias: "alpha", seed: "empty" }], clock: "real" });
const alpha = sim.environment("alpha");
alpha.model.addProject({ id: PROJECT, title: "bench", workspaceRoot: "/srv/bench" });
alpha.model.addThread({ id: THREAD, projectId: PROJECT, state: "completed" });
const tokenFile = join(root, "tokens", "alpha-write");
await writeTokenFile(tokenFile, alpha.operateToken);
const environments = [
  {
    alias: "alpha",
    environmentId: alpha.environmentId,
    transport: { kind: "url", url: alpha.url },
    tokenFile,
  },
];
const config = {
  path: join(root, "write.json"),
  port: await findFreePort(),
  stateDir: join(root, "state"),
  default: "alpha",
  environments,
};

let gate;
let registry;
try {
  gate = await startGate({
    config,
    log: () => undefined,
    handleSignals: false,
    verifyWorkspace: async (_t, p) => p,
  });
  // A lease without the passkey ceremony (the ceremony is not what is measured).
  registry = new EnvironmentRegistry({ environments, requiredScopes: OPERATE_SCOPES });
  const outcomes = await registryInventory(registry)(undefined);
  const scope = {
    scopeVersion: 2,
    runtimeMode: "full-access",
    environments: outcomes.filter((o) => o.ok).map((o) => o.grant),
  };
  const { leaseId } = gate.lease.grant({
    scope,
    scopeFingerprint: scopeFingerprint(scope),
    credentialId: "bench",
  });
  const capability = await readFile(join(config.stateDir, CAPABILITY_FILE), "utf8");
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const rpc = await (await registry.resolve("alpha").connect()).rpc();

  const input = (i) => ({ threadId: THREAD, title: `bench title ${i}` });
  const viaGate = (i) =>
    relay(
      {
        op: "dispatch",
        leaseId,
        environment: "alpha",
        operationId: `bench-${randomUUID()}`,
        action: "thread.title",
        input: input(i),
      },
      { port: gate.port, capability, agent },
    );
  const raw = async (i) => {
    const key = createHash("sha256").update(randomUUID()).digest("hex");
    const prepared = actions.prepareAction("thread.title", input(i), key);
    await rpc.dispatchCommand({ ...prepared.payload.command });
  };

  for (let i = 0; i < WARMUP_ITERATIONS; i++) {
    await viaGate(i);
    await raw(i);
  }
  const gateMs = [];
  const rawMs = [];
  const start = performance.now();
  for (let i = 0; i < MAX_ITERATIONS && performance.now() - start < TIME_BUDGET_MS; i++) {
    let t = performance.now();
    const answer = await viaGate(i);
    gateMs.push(performance.now() - t);
    if (answer.state !== "completed") throw new Error(`gate answered ${JSON.stringify(answer)}`);
    t = performance.now();
    await raw(i);
    rawMs.push(performance.now() - t);
  }
  agent.destroy();

  const report = {
    bench: "gate-dispatch",
    samples: gateMs.length,
    gateP50Ms: round(percentile(gateMs, 50)),
    gateP99Ms: round(percentile(gateMs, 99)),
    rawP50Ms: round(percentile(rawMs, 50)),
    rawP99Ms: round(percentile(rawMs, 99)),
    overheadP50Ms: round(percentile(gateMs, 50) - percentile(rawMs, 50)),
    targetOverheadP50Ms: TARGET_OVERHEAD_MS,
    load1: round(loadavg()[0] ?? 0),
  };
  report.checks = [atMost("overheadP50Ms", report.overheadP50Ms, TARGET_OVERHEAD_MS)];
  report.pass = allPass(report.checks);
  process.stderr.write(
    `samples ${report.samples}\n` +
      `gate (relay → journal → send)  p50 ${report.gateP50Ms} ms  p99 ${report.gateP99Ms} ms\n` +
      `raw dispatchCommand           p50 ${report.rawP50Ms} ms  p99 ${report.rawP99Ms} ms\n` +
      `overhead p50 ${report.overheadP50Ms} ms (target ≤ ${TARGET_OVERHEAD_MS} ms)\n`,
  );
  finishBench(report);
} finally {
  await gate?.close();
  await registry?.close();
  await sim.close();
  await rm(root, { recursive: true, force: true });
}

function relay(body, target) {
  return relayPost(body, { ...target, header: RELAY_HEADER });
}
