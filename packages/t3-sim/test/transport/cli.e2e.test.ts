import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { freePort } from "@t3-connector/test-support/free-port";
import { afterEach, describe, expect, it } from "vitest";

/**
 * The CLI is tested as users run it: `node bin/t3-sim.js` over the built `dist/`, which the
 * global setup builds once per run (the bin only launches `dist/cli.js`).
 */
const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const bin = builtBin("t3-sim");
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Ready {
  environments: {
    alias: string;
    environmentId: string;
    url: string;
    readToken: string;
    operateToken: string;
    profile: string;
    serverVersion: string;
    webBuild: boolean;
    pairingCode: string;
  }[];
}

function startCli(args: string[]): {
  child: ChildProcess;
  ready: Promise<Ready>;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const ready = new Promise<Ready>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once("line", (line) => resolve(JSON.parse(line) as Ready));
    child.once("exit", (code) => reject(new Error(`t3-sim exited with ${code} before it was ready`)));
  });
  child.stderr?.resume();
  ready.catch(() => undefined); // callers that only await `exit` must not leave a rejection unhandled
  return { child, ready, exit };
}

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe("t3-sim CLI", () => {
  it("prints usage for --help and exits 0", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "--help"]);
    expect(stdout).toMatch(/^Usage: t3-sim serve/);
    for (const flag of [
      "--compat 0.0.31",
      "--compat ALIAS=0.0.31",
      "--no-web-build [ALIAS]",
      "--web-build [ALIAS]",
    ])
      expect(stdout).toContain(flag);
  });

  it("mixes a protocol-2 and a 0.0.31 environment with --compat ALIAS=0.0.31 and says so in the JSON line", async () => {
    const { child, ready, exit } = startCli([
      "serve",
      "--environments",
      "3",
      "--compat",
      "beta=0.0.31",
      "--compat",
      "gamma=0.0.31",
      "--no-web-build",
      "gamma",
    ]);
    const line = await ready;
    expect(
      line.environments.map(({ alias, profile, serverVersion, webBuild }) => ({
        alias,
        profile,
        serverVersion,
        webBuild,
      })),
    ).toEqual([
      {
        alias: "alpha",
        profile: "protocol-2",
        serverVersion: line.environments[0]?.serverVersion,
        webBuild: false,
      },
      { alias: "beta", profile: "0.0.31", serverVersion: "0.0.31", webBuild: true },
      { alias: "gamma", profile: "0.0.31", serverVersion: "0.0.31", webBuild: false },
    ]);
    expect(line.environments[0]?.serverVersion).not.toBe("0.0.31");
    const [alpha, beta, gamma] = line.environments;
    if (!alpha || !beta || !gamma) throw new Error("three environments expected");
    const descriptor = async (url: string) =>
      (await (await fetch(`${url}/.well-known/t3/environment`)).json()) as Record<string, unknown>;
    expect((await descriptor(alpha.url)).orchestrationProtocolVersion).toBe(2);
    expect(await descriptor(beta.url)).not.toHaveProperty("orchestrationProtocolVersion");
    const read = (url: string, token: string, path: string) =>
      fetch(`${url}${path}`, {
        headers: { authorization: `Bearer ${token}`, "x-t3-orchestration-protocol": "2" },
      });
    const shell = (await (await read(beta.url, beta.readToken, "/api/orchestration/shell")).json()) as {
      threads: { id: string }[];
    };
    const bounded = `/api/orchestration/threads/${shell.threads[0]?.id}/bounded`;
    const html = await read(beta.url, beta.readToken, bounded);
    expect([html.status, html.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    const text = await read(gamma.url, gamma.readToken, bounded);
    expect([text.status, await text.text()]).toEqual([
      503,
      "No static directory configured and no dev URL set.",
    ]);
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  });

  it("--compat 0.0.31 without an alias applies to every environment", async () => {
    const { child, ready, exit } = startCli(["serve", "--environments", "2", "--compat", "0.0.31"]);
    const line = await ready;
    expect(line.environments.map((e) => [e.profile, e.serverVersion, e.webBuild])).toEqual([
      ["0.0.31", "0.0.31", true],
      ["0.0.31", "0.0.31", true],
    ]);
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  });

  it("prints the version from its package.json for --version", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "--version"]);
    const pkg = JSON.parse(await readFile(join(repo, "packages/t3-sim/package.json"), "utf8"));
    expect(stdout).toBe(`${pkg.version}\n`);
  });

  it("serves N environments, prints one JSON line, writes the config files and stops on SIGTERM with 0", async () => {
    const dir = await mkdtemp(join(tmpdir(), "t3-sim-cli-"));
    dirs.push(dir);
    const out = join(dir, "out");
    const { child, ready, exit } = startCli([
      "serve",
      "--environments",
      "2",
      "--seed",
      "demo",
      "--config-out",
      out,
    ]);
    const line = await ready;
    expect(line.environments.map((e) => e.alias)).toEqual(["alpha", "beta"]);
    for (const env of line.environments) {
      expect(Object.keys(env)).toEqual([
        "alias",
        "environmentId",
        "url",
        "readToken",
        "operateToken",
        "profile",
        "serverVersion",
        "webBuild",
        "pairingCode",
      ]);
      expect(env.profile).toBe("protocol-2");
      expect(env.pairingCode).toMatch(/^[A-Za-z0-9]{12}$/);
      const descriptor = (await (await fetch(`${env.url}/.well-known/t3/environment`)).json()) as Record<
        string,
        unknown
      >;
      expect(descriptor.environmentId).toBe(env.environmentId);
      const session = await fetch(`${env.url}/api/auth/session`, {
        headers: { authorization: `Bearer ${env.readToken}` },
      });
      expect(((await session.json()) as { scopes: string[] }).scopes).toEqual(["orchestration:read"]);
    }

    expect(await mode(out)).toBe(0o700);
    expect(await mode(join(out, "tokens"))).toBe(0o700);
    const config = JSON.parse(await readFile(join(out, "config.json"), "utf8"));
    const write = JSON.parse(await readFile(join(out, "write.json"), "utf8"));
    expect(config).not.toHaveProperty("default");
    expect(write.port).toBe(7433);
    expect(write.stateDir).toBe(join(out, "state"));
    for (const env of line.environments) {
      const readEntry = config.environments[env.alias];
      const writeEntry = write.environments[env.alias];
      expect(readEntry).toMatchObject({ environmentId: env.environmentId, url: env.url });
      expect(readEntry.tokenFile).toBe(join(out, "tokens", `${env.alias}.read.token`));
      expect(writeEntry).toEqual({
        environmentId: env.environmentId,
        url: env.url,
        tokenFile: join(out, "tokens", `${env.alias}.operate.token`),
      });
      expect(await readFile(readEntry.tokenFile, "utf8")).toBe(env.readToken);
      expect(await readFile(writeEntry.tokenFile, "utf8")).toBe(env.operateToken);
      expect(await mode(readEntry.tokenFile)).toBe(0o600);
      expect(await mode(writeEntry.tokenFile)).toBe(0o600);
      const projects = (await (
        await fetch(`${env.url}/api/projects`, { headers: { authorization: `Bearer ${env.readToken}` } })
      ).json()) as { projects: { id: string }[] };
      expect(readEntry.allowedProjects).toEqual(projects.projects.map((p) => p.id));
      expect(readEntry.allowedProjects.length).toBeGreaterThan(0);
    }

    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  });

  it("listens on consecutive ports from --port and stops on SIGINT with 0", async () => {
    const port = await freePort(2);
    const { child, ready, exit } = startCli([
      "serve",
      "--port",
      String(port),
      "--environments",
      "2",
      "--seed",
      "empty",
    ]);
    const line = await ready;
    expect(line.environments.map((e) => e.url)).toEqual([
      `http://127.0.0.1:${port}`,
      `http://127.0.0.1:${port + 1}`,
    ]);
    child.kill("SIGINT");
    expect(await exit).toBe(0);
  });

  it("refuses an unknown option with exit 64, as every CLI here does", async () => {
    const { exit } = startCli(["serve", "--bogus", "1"]);
    expect(await exit).toBe(64);
  });
});
