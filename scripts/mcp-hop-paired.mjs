// The MCP hop alone, two builds paired: an MCP SDK client calls `t3_escrever_thread_title` on each
// build's spawned `t3-connector-write bridge` (built bin), which relays to one stand-in gate on
// loopback that answers a completed dispatch at once (no journal, no T3). What is timed is only the
// client → stdio → bridge → POST /relay → back, the part of bench/write-path.mjs's path above its
// relay figure.
//
//   pnpm build && BASE=<built checkout of the base commit> node scripts/mcp-hop-paired.mjs
//
// Calls alternate one by one between the builds (BLOCK, default 1), so the load of a shared machine
// falls on both alike; SAMPLES per build (default 2000) after 100 warm-up calls each. THIS names
// the measured build (default: this checkout), so BASE=THIS gives the A/A noise. Prints one JSON
// line: p50 of each build and the change.
import { randomBytes, randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import path, { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { pairedChange, round } from "../bench/lib/stats.mjs";

const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
if (process.env.BASE === undefined) {
  process.stderr.write("mcp-hop-paired: set BASE to a built checkout of the base commit\n");
  process.exit(64);
}
const ROOTS = { base: path.resolve(process.env.BASE), this: path.resolve(process.env.THIS ?? here) };
const SAMPLES = Number(process.env.SAMPLES ?? 2000);
const BLOCK = Number(process.env.BLOCK ?? 1);
const WARMUP = 100;

const dir = await mkdtemp(join(tmpdir(), "t3-mcp-hop-paired-"));
/** The stand-in gate: any dispatch is completed at once, as the relay contract spells it. */
const gate = createServer((req, res) => {
  let text = "";
  req.on("data", (chunk) => {
    text += chunk;
  });
  req.on("end", () => {
    const op = JSON.parse(text);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        state: "completed",
        leaseId: op.leaseId,
        operationId: op.operationId,
        environmentId: "env-paired",
        action: op.action,
        replayed: false,
        receipt: { sequence: 1 },
        derivedIds: { commandId: "command-paired" },
      }),
    );
  });
});
await new Promise((resolve) => gate.listen(0, "127.0.0.1", resolve));
const builds = {};

/** One build's bridge, with its own state directory and capability file, joined to an SDK client. */
async function startBridge(name, root) {
  const sdk = (file) =>
    import(pathToFileURL(join(root, "node_modules/@modelcontextprotocol/sdk/dist/esm", file)).href);
  const { Client } = await sdk("client/index.js");
  const { StdioClientTransport } = await sdk("client/stdio.js");
  const stateDir = join(dir, name);
  await mkdir(stateDir, { mode: 0o700 });
  await writeFile(join(stateDir, "relay-capability"), randomBytes(32).toString("base64url"), { mode: 0o600 });
  const configPath = join(dir, `${name}.json`);
  const environments = {
    alpha: { environmentId: "env-paired", url: "http://127.0.0.1:1", tokenFile: join(dir, "unused") },
  };
  await writeFile(configPath, JSON.stringify({ port: gate.address().port, stateDir, environments }), {
    mode: 0o600,
  });
  const client = new Client({ name: "mcp-hop-paired", version: "0.0.0" });
  builds[name] = { client, samples: [] };
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(root, "packages/write-gate/bin/t3-connector-write.js"), "bridge"],
      env: { ...process.env, T3_CONNECTOR_WRITE_CONFIG: configPath },
      stderr: "pipe",
    }),
  );
}

let exitCode = 0;
try {
  for (const [name, root] of Object.entries(ROOTS)) await startBridge(name, root);
  for (let i = 0; i < 2 * (WARMUP + SAMPLES); i++) {
    const build = builds[Math.floor(i / BLOCK) % 2 === 0 ? "base" : "this"];
    const started = performance.now();
    const answer = await build.client.callTool({
      name: "t3_escrever_thread_title",
      arguments: {
        leaseId: "lease-paired",
        environment: "alpha",
        operationId: `paired-${randomUUID()}`,
        input: { threadId: "thread-paired", title: `paired ${i}` },
      },
    });
    if (answer.isError || answer.structuredContent?.state !== "completed") {
      throw new Error(JSON.stringify(answer));
    }
    if (i >= 2 * WARMUP) build.samples.push(performance.now() - started);
  }
  const report = {
    script: "mcp-hop-paired",
    loadavg1m: round(loadavg()[0] ?? 0),
    ...pairedChange(builds.base.samples, builds.this.samples),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
} catch (error) {
  process.stderr.write(`mcp-hop-paired failed: ${error?.stack ?? error}\n`);
  exitCode = 1;
} finally {
  for (const build of Object.values(builds)) await build.client.close();
  await new Promise((resolve) => gate.close(resolve));
  await rm(dir, { recursive: true, force: true });
}
process.exitCode = exitCode;
