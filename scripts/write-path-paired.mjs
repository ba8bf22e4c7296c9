// The write path of two builds, measured paired: on a shared machine one run's figures move by 2×
// with the load, so a change to the write path is judged against the base build in the same run.
//
//   cp -a <checkout at the base commit, built> /tmp/base      # or any built checkout of it
//   pnpm build && BASE=/tmp/base node scripts/write-path-paired.mjs
//
// Both builds start their own gate (in this process, as bench/write-path.mjs starts one) and spawn
// their own bridge, against one simulator; their writes (`t3_escrever_thread_title`, answered
// `completed`) run in blocks of BLOCK (default 20) alternating between the builds, with a raw
// `dispatchCommand` after each. Blocks, not single writes, because a write's cost depends on what
// the same journal did just before it (ADR 0066). MODE picks what is timed: `path` (MCP client →
// bridge → gate, default), `relay` (one POST /relay), `engine` (the engine in process), or several
// joined by commas. SAMPLES per build and mode (default 300). Not part of `pnpm bench` (it needs
// BASE); prints one JSON line: p50 of each build, as ms and as a ratio to raw, and the change.
import { createHash, randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { Agent } from "node:http";
import { loadavg, tmpdir } from "node:os";
import path, { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { relayPost } from "../bench/lib/relay-post.mjs";
import { pairedChange, percentile, round } from "../bench/lib/stats.mjs";

const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
if (process.env.BASE === undefined) {
  process.stderr.write("write-path-paired: set BASE to a built checkout of the base commit\n");
  process.exit(64);
}
const ROOTS = { base: path.resolve(process.env.BASE), this: here };
const SAMPLES = Number(process.env.SAMPLES ?? 300);
const BLOCK = Number(process.env.BLOCK ?? 20);
const WARMUP = 20;
const MODES = (process.env.MODE ?? "path").split(",");

const dist = (root, pkg, file) => import(pathToFileURL(join(root, "packages", pkg, "dist", file)).href);
const sdk = (root, file) =>
  import(pathToFileURL(join(root, "node_modules/@modelcontextprotocol/sdk/dist/esm", file)).href);

const { startSimulator } = await dist(here, "t3-sim", "index.js");
const actions = await dist(here, "write-engine", "actions/index.js");
const { EnvironmentRegistry, OPERATE_SCOPES, findFreePort } = await dist(
  here,
  "core",
  "environments/index.js",
);
const sim = await startSimulator({ environments: [{ alias: "alpha", seed: "empty" }], clock: "real" });
const alpha = sim.environment("alpha");
alpha.model.addProject({ id: "paired-project", title: "paired", workspaceRoot: "/srv/paired" });
alpha.model.addThread({ id: "paired-thread", projectId: "paired-project", state: "completed" });
const dir = await mkdtemp(join(tmpdir(), "t3-write-path-paired-"));
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const builds = {};

/** One build's gate (from a write.json on disk, as the CLI starts it), a lease, and its bridge. */
async function startBuild(name, root) {
  const { writeTokenFile, loadWriteConfig } = await dist(root, "core", "config/index.js");
  const { startGate } = await dist(root, "write-gate", "process/index.js");
  const { registryInventory, scopeFingerprint } = await dist(root, "write-gate", "approval/index.js");
  const { CAPABILITY_FILE } = await dist(root, "write-gate", "relay/index.js");
  const { RELAY_HEADER } = await dist(root, "write-engine", "relay-contract/index.js");
  const { Client } = await sdk(root, "client/index.js");
  const { StdioClientTransport } = await sdk(root, "client/stdio.js");
  const tokenFile = join(dir, name, "tokens", "alpha-write");
  await writeTokenFile(tokenFile, alpha.operateToken);
  const configPath = join(dir, name, "write.json");
  const document = {
    port: await findFreePort(),
    stateDir: join(dir, name, "state"),
    environments: { alpha: { environmentId: alpha.environmentId, url: alpha.url, tokenFile } },
  };
  await writeFile(configPath, JSON.stringify(document), { mode: 0o600 });
  const config = await loadWriteConfig({ path: configPath });
  const gate = await startGate({
    config,
    log: () => undefined,
    handleSignals: false,
    verifyWorkspace: async (_thread, workspace) => workspace,
  });
  const registry = new EnvironmentRegistry({
    environments: config.environments,
    requiredScopes: OPERATE_SCOPES,
  });
  const outcomes = await registryInventory(registry)(undefined);
  const scope = {
    scopeVersion: 2,
    runtimeMode: "full-access",
    environments: outcomes.filter((outcome) => outcome.ok).map((outcome) => outcome.grant),
  };
  const { leaseId } = gate.lease.grant({
    scope,
    scopeFingerprint: scopeFingerprint(scope),
    credentialId: "paired",
  });
  const client = new Client({ name: "write-path-paired", version: "0.0.0" });
  const build = {
    gate,
    registry,
    client,
    leaseId,
    samples: Object.fromEntries(MODES.map((mode) => [mode, []])),
  };
  builds[name] = build;
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(root, "packages/write-gate/bin/t3-connector-write.js"), "bridge"],
      env: { ...process.env, T3_CONNECTOR_WRITE_CONFIG: configPath },
      stderr: "pipe",
    }),
  );
  const capability = await readFile(join(config.stateDir, CAPABILITY_FILE), "utf8");
  build.target = { port: gate.port, capability, agent, header: RELAY_HEADER };
  build.rpcConfig = config;
}

const input = (i) => ({ threadId: "paired-thread", title: `paired ${i}` });
const write = (build, i) => ({
  leaseId: build.leaseId,
  environment: "alpha",
  operationId: `paired-${randomUUID()}`,
  action: "thread.title",
  input: input(i),
});
const RUN = {
  async path(build, i) {
    const answer = await build.client.callTool({
      name: "t3_escrever_thread_title",
      arguments: {
        leaseId: build.leaseId,
        environment: "alpha",
        operationId: `paired-${randomUUID()}`,
        input: input(i),
      },
    });
    if (answer.isError || answer.structuredContent?.state !== "completed")
      throw new Error(JSON.stringify(answer));
  },
  async relay(build, i) {
    const answer = await relayPost({ op: "dispatch", ...write(build, i) }, build.target);
    if (answer.state !== "completed") throw new Error(JSON.stringify(answer));
  },
  async engine(build, i) {
    const answer = await build.gate.engine.dispatch({
      ...write(build, i),
      lease: build.gate.lease.facts(build.leaseId),
    });
    if (answer.state !== "completed") throw new Error(JSON.stringify(answer));
  },
};

let exitCode = 0;
try {
  for (const [name, root] of Object.entries(ROOTS)) await startBuild(name, root);
  const rpcRegistry = new EnvironmentRegistry({
    environments: builds.this.rpcConfig.environments,
    requiredScopes: OPERATE_SCOPES,
  });
  const rpc = await (await rpcRegistry.resolve("alpha").connect()).rpc();
  const raw = [];
  const rounds = 2 * (WARMUP + SAMPLES);
  for (let i = 0; i < rounds; i++) {
    const name = Math.floor(i / BLOCK) % 2 === 0 ? "base" : "this";
    const build = builds[name];
    for (const mode of MODES) {
      const started = performance.now();
      await RUN[mode](build, i);
      if (i >= 2 * WARMUP) build.samples[mode].push(performance.now() - started);
    }
    const key = createHash("sha256").update(randomUUID()).digest("hex");
    const started = performance.now();
    await rpc.dispatchCommand({ ...actions.prepareAction("thread.title", input(i), key).payload.command });
    if (i >= 2 * WARMUP) raw.push(performance.now() - started);
  }
  await rpcRegistry.close();
  const rawP50 = percentile(raw, 50);
  const report = {
    script: "write-path-paired",
    loadavg1m: round(loadavg()[0] ?? 0),
    rawP50Ms: round(rawP50),
  };
  for (const mode of MODES) {
    const paired = pairedChange(builds.base.samples[mode], builds.this.samples[mode]);
    report[mode] = {
      ...paired,
      baseToRaw: round(paired.baseP50Ms / rawP50),
      thisToRaw: round(paired.thisP50Ms / rawP50),
    };
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
} catch (error) {
  process.stderr.write(`write-path-paired failed: ${error?.stack ?? error}\n`);
  exitCode = 1;
} finally {
  agent.destroy();
  for (const build of Object.values(builds)) {
    await build.client.close();
    await build.gate.close();
    await build.registry.close();
  }
  await sim.close();
  await rm(dir, { recursive: true, force: true });
}
process.exitCode = exitCode;
