// Shared set-up of the read benchmarks: simulated environments, a real read config with token
// files pointing at them, and the read server joined to an MCP SDK client. Everything is imported
// from built `dist` modules (run `pnpm build` first).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));

/** Imports a built module of a workspace package, e.g. `dist("core", "config/index.js")`. */
export function dist(pkg, file) {
  return import(pathToFileURL(path.join(root, "packages", pkg, "dist", file)).href);
}

/** The v1 MCP client (the clients in the field), a dev dependency of the workspace root. */
export function sdk(file) {
  const base = path.join(root, "node_modules/@modelcontextprotocol/sdk/dist/esm");
  return import(pathToFileURL(path.join(base, file)).href);
}

/** `{alias, environmentId, url, readToken, projectIds}` of an in-process simulator's environments. */
export function describeSimulator(sim) {
  return sim.environments.map((env) => ({
    alias: env.alias,
    environmentId: env.environmentId,
    url: env.url,
    readToken: env.readToken,
    projectIds: [...env.model.store.projects.values()].map((project) => project.id),
  }));
}

/**
 * The raw read config (token files written under `dir`, mode 600) for environments described as
 * `{alias, environmentId, url, readToken, projectIds}`; every project is allowed.
 */
export async function writeReadConfig(environments, dir) {
  const { writeTokenFile } = await dist("core", "config/index.js");
  const entries = {};
  for (const env of environments) {
    const tokenFile = path.join(dir, "tokens", `${env.alias}.token`);
    await writeTokenFile(tokenFile, env.readToken);
    entries[env.alias] = {
      environmentId: env.environmentId,
      url: env.url,
      tokenFile,
      allowedProjects: env.projectIds.length > 0 ? env.projectIds : ["none"],
    };
  }
  return { environments: entries };
}

/**
 * The read server with `definitions` over the described environments, and an SDK client on the in-memory transport
 * (the process boundary is measured by read-startup; here only our code path counts).
 * `options.limits` overrides read limits (e.g. deadlines a loaded machine would hit while measuring).
 */
export async function startBenchRead(environments, definitions, options = {}) {
  const [{ parseReadConfig }, { createProcessReadContext }, { createReadServer }] = await Promise.all([
    dist("core", "config/index.js"),
    dist("read-server", "read-context.js"),
    dist("read-server", "server.js"),
  ]);
  const [{ Client }, { InMemoryTransport }] = await Promise.all([sdk("client/index.js"), sdk("inMemory.js")]);
  const dir = await mkdtemp(path.join(tmpdir(), "t3-read-bench-"));
  const raw = await writeReadConfig(environments, dir);
  const config = parseReadConfig(raw, { path: path.join(dir, "config.json") });
  const logs = [];
  const context = createProcessReadContext({
    config,
    log: (line) => logs.push(line),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  const server = createReadServer(definitions, context);
  const client = new Client({ name: "read-bench", version: "0.0.0" });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  return {
    context,
    client,
    logs,
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name} failed: ${result.content?.[0]?.text}`);
      return result.structuredContent;
    },
    async close() {
      await client.close();
      await server.close();
      context.registry.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once `condition()` holds, checking on every turn of the event loop (set-up only). */
export async function until(condition, timeoutMs = 5_000) {
  const start = performance.now();
  while (!condition()) {
    if (performance.now() - start > timeoutMs) throw new Error("bench set-up condition never held");
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Starts simulated environments in a child process (bench/lib/sim-child.mjs), so that serving
 * them does not share the measured process's event loop, as with a real remote T3. Resolves with
 * the environments' descriptions and a `stop()`.
 */
export async function startSimulatorChild(options) {
  const { spawn } = await import("node:child_process");
  const child = spawn(
    process.execPath,
    [path.join(root, "bench/lib/sim-child.mjs"), JSON.stringify(options)],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const environments = await new Promise((resolve, reject) => {
    let buffered = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      const newline = buffered.indexOf("\n");
      if (newline >= 0) resolve(JSON.parse(buffered.slice(0, newline)).environments);
    });
    child.once("exit", (code) => reject(new Error(`simulator child exited early (${code})`)));
  });
  return {
    environments,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.stdin.end();
      }),
  };
}
