#!/usr/bin/env node
import { spawn } from "node:child_process";
// `pnpm demo`: two simulated T3 Code environments seeded with projects and threads in every
// state, a ready configuration pointing at them, a first look at what is running where, how to
// connect an MCP client to the read server, the write gate (approval page and relay) started on
// the same environments with its URL and one-time enrollment code, and a short scripted tour
// through the read server.
// Runs until Ctrl-C, then stops the gate and the simulator and removes its temporary directory
// (configs and token files). `--exit-when-ready` stops after the tour; `--keep-config` leaves the
// directory for a test to inspect. `--keep` writes the configs to a place of their own under your
// config directory (~/.config/t3-connector/demo), with an `oauth` section for http://localhost:8000,
// keeps them when it stops, and prints the commands that carry them into the README's by-URL
// sections while the demo runs.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const core = await import(path.join(root, "packages/core/dist/t3/index.js"));
// The tools' words for a thread's state (`running`, `needs_intervention`, `cancelled`, …), not T3's.
const { threadSummary } = await import(path.join(root, "packages/core/dist/state/index.js"));
// The tour is a client in the field: the v1 MCP client, a dev dependency of the workspace root.
const sdk = path.join(root, "node_modules/@modelcontextprotocol/sdk/dist/esm/client");
const { Client } = await import(pathToFileURL(path.join(sdk, "index.js")).href);
const { StdioClientTransport } = await import(pathToFileURL(path.join(sdk, "stdio.js")).href);
const readServerBin = path.join(root, "packages/read-server/bin/t3-connector.js");
const writeGateBin = path.join(root, "packages/write-gate/bin/t3-connector-write.js");
const exitWhenReady = process.argv.includes("--exit-when-ready");
const keepConfig = process.argv.includes("--keep-config");
const keep = process.argv.includes("--keep");
const say = (line = "") => process.stdout.write(`${line}\n`);

const configDir = keep ? await keptDemoDir() : await mkdtemp(path.join(os.tmpdir(), "t3-connector-demo-"));
// What `--keep` adds to the read config: sign-in by URL on this machine, state beside the configs.
const DEMO_ISSUER = "http://localhost:8000";
const simBin = path.join(root, "packages/t3-sim/bin/t3-sim.js");
// Children in process groups of their own: Ctrl-C reaches the demo only, which stops the gate
// before the environments it closes its leases on, then the simulator.
const sim = spawn(
  process.execPath,
  [simBin, "serve", "--environments", "2", "--seed", "demo", "--config-out", configDir],
  { stdio: ["ignore", "pipe", "inherit"], detached: true },
);
// Whatever ends the demo ends them too, and takes the temporary configs and tokens with it.
process.on("exit", () => {
  gate?.kill("SIGTERM");
  sim.kill("SIGTERM");
  if (!keepConfig && !keep) rmSync(configDir, { recursive: true, force: true });
});

const ready = await new Promise((resolve, reject) => {
  const lines = createInterface({ input: sim.stdout });
  lines.once("line", (line) => resolve(JSON.parse(line)));
  sim.once("exit", (code) => reject(new Error(`the simulator exited early (code ${code})`)));
});

let stopping = false;
let mcp;
let gate;
const exited = (child) =>
  child === undefined || child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", resolve));
const stop = (code = 0) => {
  if (stopping) return;
  stopping = true;
  Promise.resolve(mcp?.close())
    .catch(() => undefined)
    .finally(async () => {
      // The gate first: it closes its lease and journal while the environments are still up.
      gate?.kill("SIGTERM");
      await exited(gate);
      sim.kill("SIGTERM");
      await exited(sim);
      process.exit(code);
    });
};
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));

const writeConfigPath = path.join(configDir, "write.json");
if (keep) await addSignInByUrl(path.join(configDir, "config.json"));
let writeGate;
try {
  writeGate = await startWriteGate();
} catch (error) {
  process.stderr.write(
    `demo: the write gate did not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  stop(1);
  await new Promise(() => undefined);
}

say("t3-connector demo — two simulated T3 Code environments are running on this machine.");
say();
for (const env of ready.environments) {
  const http = new core.T3HttpClient({ baseUrl: env.url, token: env.readToken });
  const [descriptor, shell] = await Promise.all([http.getDescriptor(), http.getShell()]);
  say(`  ${env.alias}  ${descriptor.label}  ${env.url}  (environmentId ${env.environmentId})`);
  say(`    ${shell.projects.length} projects, ${shell.threads.length} active threads:`);
  const now = Date.now();
  for (const thread of shell.threads) {
    const { state } = threadSummary(thread, { now });
    const flags = [
      thread.pendingRuntimeRequest ? `waiting on ${thread.pendingRuntimeRequest.kind}` : null,
      thread.settledAt ? "settled" : null,
      thread.snoozedUntil ? `snoozed until ${thread.snoozedUntil}` : null,
      thread.pinnedAt ? "pinned" : null,
    ].filter(Boolean);
    say(`      - ${state.padEnd(18)} ${thread.title}${flags.length ? `  [${flags.join(", ")}]` : ""}`);
  }
  say();
}

say(`Configuration written to ${configDir}:`);
say(`  config.json (read), write.json (write), tokens/ (mode 600)`);
say();
say("Try next:");
say(`  export T3_CONNECTOR_CONFIG=${path.join(configDir, "config.json")}`);
say(`  export T3_CONNECTOR_WRITE_CONFIG=${path.join(configDir, "write.json")}`);
const first = ready.environments[0];
say(`  curl -s ${first.url}/.well-known/t3/environment`);
say(
  `  curl -s -H "Authorization: Bearer $(cat ${path.join(configDir, "tokens", `${first.alias}.read.token`)})" \\`,
);
say(`       -H "x-t3-orchestration-protocol: 2" ${first.url}/api/orchestration/shell`);
say();

const configPath = path.join(configDir, "config.json");
say("Connect an MCP client to the read server (stdio) on these environments:");
say(`  T3_CONNECTOR_CONFIG=${configPath} node ${readServerBin} serve`);
say("  or, in an MCP client's server list:");
say(
  `  ${JSON.stringify({ command: "node", args: [readServerBin, "serve"], env: { T3_CONNECTOR_CONFIG: configPath } })}`,
);
say();

say("The write gate runs on the same environments (writes only under a lease you approve with a passkey):");
say(`  approval page: ${writeGate.url}`);
if (writeGate.enrollmentCode === null) {
  say("  a passkey from an earlier `pnpm demo --keep` is enrolled there: approve with it.");
} else {
  say(`  one-time passkey enrollment code: ${writeGate.enrollmentCode}`);
  say("  open the page, enter the code and register a passkey; the bridge then asks for approval there.");
}
say(`  (T3_CONNECTOR_WRITE_CONFIG=${writeConfigPath} node ${writeGateBin} gate runs it on its own)`);
say();

try {
  await addEnvironmentTheUsualWay();
  await tour();
  if (keep) sayByUrlNextSteps();
  say();
  say(
    keepConfig || keep
      ? "Press Ctrl-C to stop the write gate and the simulated environments."
      : `Press Ctrl-C to stop the write gate and the simulated environments and remove ${configDir}.`,
  );
  if (exitWhenReady) stop(0);
} catch (error) {
  process.stderr.write(`demo: the tour failed: ${error instanceof Error ? error.message : String(error)}\n`);
  stop(1);
}

/**
 * Starts `t3-connector-write gate` on the write.json the simulator wrote, and waits for the two
 * lines it prints on its terminal (stderr): its URL and its one-time enrollment code. The config's
 * port (7433, the documented default) is moved to a free one when the gate finds it taken, e.g.
 * by a gate of your own; asking the gate itself leaves no gap between a check and its bind.
 */
async function startWriteGate() {
  // 7433, then two free ports, before the demo gives up.
  const attempts = 3;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await launchWriteGate();
    } catch (error) {
      if (error?.portTaken !== true || attempt === attempts) throw error;
      const config = JSON.parse(await readFile(writeConfigPath, "utf8"));
      config.port = await freePort();
      await writeFile(writeConfigPath, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    }
  }
}

function launchWriteGate() {
  gate = spawn(process.execPath, [writeGateBin, "gate"], {
    env: { ...process.env, T3_CONNECTOR_WRITE_CONFIG: writeConfigPath },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    let url;
    let enrollmentCode;
    let portTaken;
    const lines = createInterface({ input: gate.stderr });
    const earlyExit = (code) =>
      reject(
        // The gate's own line says which port was taken.
        portTaken
          ? Object.assign(new Error(portTaken), { portTaken: true })
          : new Error(`the gate exited early (code ${code})`),
      );
    // "close", not "exit": the gate's last line (why it stopped) is read by then.
    gate.once("close", earlyExit);
    lines.on("line", (line) => {
      url ??= /listening on (http:\/\/localhost:\d+\/)/.exec(line)?.[1];
      enrollmentCode ??= /enrollment code: (\S+)$/.exec(line)?.[1];
      // A kept state directory (`--keep`) may already hold a passkey: then no code is printed.
      if (/a passkey is enrolled, so no enrollment code is printed/.test(line)) enrollmentCode ??= null;
      // A taken port is not news while another is tried: it is said only if no port works.
      if (/\bport_in_use: .*already in use/.test(line)) {
        portTaken = line;
        return;
      }
      // Everything else the gate says stays on the demo's stderr; the code is shown once, below.
      if (!/enrollment code:/.test(line)) process.stderr.write(`${line}\n`);
      if (url !== undefined && enrollmentCode !== undefined) {
        gate.off("close", earlyExit);
        resolve({ url, enrollmentCode });
      }
    });
  });
}

/**
 * What a user does on their own machine, shown on the first simulated environment: the simulator
 * printed a single-use pairing code (a real T3 prints one with `t3 auth pairing create`), and
 * `t3-connector environments add` turns it into a read token and a config of its own.
 */
async function addEnvironmentTheUsualWay() {
  const env = ready.environments[0];
  const ownConfig = path.join(configDir, "own", "config.json");
  // A kept directory holds the previous run's: this run's pairing code is for new environments.
  rmSync(path.dirname(ownConfig), { recursive: true, force: true });
  say("Adding an environment as on your own machine (pairing code on stdin, a config of its own):");
  say(`  printf '<pairing code>' | T3_CONNECTOR_CONFIG=${ownConfig} \\`);
  say(`    pnpm exec t3-connector environments add mine --url ${env.url} --projects all`);
  const added = await runBin(
    readServerBin,
    ["environments", "add", "mine", "--url", env.url, "--projects", "all"],
    {
      env: { ...process.env, T3_CONNECTOR_CONFIG: ownConfig },
      stdin: env.pairingCode,
    },
  );
  if (added.code !== 0) throw new Error(`environments add failed: ${added.stderr.trim()}`);
  const report = JSON.parse(added.stdout);
  say(
    `  added "${report.alias}": environmentId ${report.diagnosis.environmentId}, token scopes ${report.scopes.join(" ")}, ` +
      `${report.diagnosis.authorizedProjects.length} projects, ${report.diagnosis.visibleThreadCount} visible threads, verified ${report.ok ? "ok" : "with problems"}`,
  );
  say(
    `  (the code is now spent; T3_CONNECTOR_CONFIG=${ownConfig} pnpm exec t3-connector environments lists it)`,
  );
  say();
}

/** Runs a bin to completion with `stdin`, collecting its output. */
function runBin(bin, args, { env, stdin }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** A few calls a client would make, through the real read server spawned over stdio. */
async function tour() {
  say("A short tour through the read server (the same calls an AI client makes):");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [readServerBin, "serve"],
    env: { ...process.env, T3_CONNECTOR_CONFIG: configPath },
    stderr: "ignore",
  });
  mcp = new Client({ name: "t3-connector-demo", version: "0.0.0" });
  await mcp.connect(transport);
  const call = async (name, args) => {
    const result = await mcp.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${result.content?.[0]?.text}`);
    return result.structuredContent;
  };
  const where = (item) => item.environment.alias;

  say();
  say("  1. t3_threads {limit: 5} — every environment at once, newest first:");
  const listing = await call("t3_threads", { limit: 5 });
  say(
    `     ${listing.total} threads, complete: ${listing.complete}, from ${listing.queriedEnvironments.map((e) => e.alias).join(" + ")}`,
  );
  for (const thread of listing.threads)
    say(`     - ${where(thread).padEnd(6)} ${thread.state.padEnd(18)} ${thread.title}`);
  if (listing.truncated) say("     (truncated: call again with cursor = nextCursor for the next page)");

  say();
  say('  2. t3_buscar_threads {search: "test scope"} — find a thread by title:');
  const found = await call("t3_buscar_threads", { search: "test scope" });
  for (const thread of found.threads)
    say(`     - ${where(thread).padEnd(6)} ${thread.threadId}  ${thread.title}`);
  say(`     ${found.total} matches: the same title lives in each environment, so a client asks which one.`);

  const question = found.threads.find((thread) => where(thread) === first.alias);
  say();
  say(`  3. t3_thread {environment: "${first.alias}", threadId} — a thread waiting on a question:`);
  const thread = await call("t3_thread", { environment: first.alias, threadId: question.threadId });
  say(`     state ${thread.state} (${thread.stateSource})`);
  for (const request of thread.pendingRequests) {
    for (const q of request.content?.questions ?? []) say(`     asks: "${q.question}"`);
    if (request.nextAction?.tool) say(`     answer with ${request.nextAction.tool} through the write bridge`);
  }

  say();
  const title = "Refactor auth middleware";
  const [target] = (
    await call("t3_buscar_threads", { search: title, match: "exact", environment: first.alias })
  ).threads;
  say(`  4. t3_aguardar_thread — the demo sends "${title}" in ${first.alias} a new message (as a T3 user`);
  say("     would), then the read server waits for that run to finish:");
  await sendAsUser(
    first,
    target.threadId,
    "One more check, please. [[sim:delay=1500]] [[sim:reply=All checks pass.]]",
  );
  const waited = await call("t3_aguardar_thread", {
    environment: first.alias,
    threadId: target.threadId,
    timeoutMs: 5000,
    includeLatestResponse: true,
  });
  say(`     returnReason ${waited.returnReason}, state ${waited.state}, after ${waited.elapsedMs} ms`);
  if (waited.latestResponse) say(`     latest response: "${waited.latestResponse.text}"`);
  await mcp.close();
  mcp = undefined;
}

/** What the T3 UI does when a user sends a message; the read server itself can never do this. */
async function sendAsUser(env, threadId, text) {
  const rpc = await core.T3RpcClient.connect({ baseUrl: env.url, token: env.operateToken });
  try {
    await rpc.dispatchCommand({
      commandId: randomUUID(),
      type: "message.dispatch",
      threadId,
      messageId: randomUUID(),
      text,
      attachments: [],
      createdBy: "user",
      creationSource: "web",
      dispatchMode: { type: "start_immediately" },
    });
  } finally {
    rpc.close();
  }
}

/** `--keep`'s directory: the demo's own, under your config directory, never your config.json. */
async function keptDemoDir() {
  const base = process.env.XDG_CONFIG_HOME?.startsWith("/")
    ? process.env.XDG_CONFIG_HOME
    : path.join(os.homedir(), ".config");
  const dir = path.join(base, "t3-connector", "demo");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Adds the by-URL sign-in on this machine to the kept read config (the README's Inspector setup). */
async function addSignInByUrl(configPath) {
  const config = JSON.parse(await readFile(configPath, "utf8"));
  config.oauth = { issuer: DEMO_ISSUER, stateDir: path.join(configDir, "oauth"), loopbackRedirects: true };
  await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

/** Where the README's by-URL sections go on from here, with these configs, while the demo runs. */
function sayByUrlNextSteps() {
  say();
  say(`Kept in ${configDir} (pnpm demo --keep): to go on with "Use it from ChatGPT or Claude by URL"`);
  say('and "Act from your phone" on these environments while the demo runs, in another terminal:');
  say(`  export T3_CONNECTOR_CONFIG=${path.join(configDir, "config.json")}`);
  say(`  export T3_CONNECTOR_WRITE_CONFIG=${writeConfigPath}`);
  say("  pnpm exec t3-connector serve --http --port 8000");
  say(`  (its oauth section signs in at ${DEMO_ISSUER}; put your public name there as the README says)`);
  say(
    "The files stay when the demo stops; `pnpm demo --keep` starts the environments again and rewrites them.",
  );
}
