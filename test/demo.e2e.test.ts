import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { access, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { builtFile } from "@t3-connector/test-support/built-bins";
import { describe, expect, it } from "vitest";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function runDemo(
  flags: readonly string[] = ["--keep-config"],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtFile("scripts/demo.mjs"), "--exit-when-ready", ...flags], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Holds 127.0.0.1:`port` until released; a port someone else already holds is held all the same. */
async function holdPort(port: number): Promise<{ release(): Promise<void> }> {
  const server: Server = createServer();
  server.listen(port, "127.0.0.1");
  const [event] = await Promise.race([
    once(server, "listening"),
    once(server, "error").then(() => ["error"]),
  ]);
  return {
    release: () =>
      event === "listening"
        ? new Promise<void>((resolve) => server.close(() => resolve()))
        : Promise.resolve(),
  };
}

// The demo spawns the write gate from its dist (built once per run by the global setup).
// The README's first command line ends in `pnpm demo`; this keeps that promise honest.
describe("pnpm demo", () => {
  it("starts two simulated environments, writes a working configuration and says what to do next", async () => {
    const { code, stdout, stderr } = await runDemo();
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("alpha");
    expect(stdout).toContain("beta");
    expect(stdout).toContain("Try next:");
    // The onboarding flow, on the first simulated environment with its single-use pairing code.
    expect(stdout).toMatch(
      /added "mine": environmentId \S+, token scopes orchestration:read, \d+ projects, \d+ visible threads, verified ok/,
    );
    expect(stdout).toMatch(/waiting on user_input/);
    // Commands a reader can paste after the README's first line: the CLIs through pnpm exec.
    expect(stdout).toContain("pnpm exec t3-connector environments add mine --url");
    expect(stdout).not.toMatch(/^\s+t3-connector /m);
    // The threads in the tools' words, never T3's raw run statuses.
    const listed = stdout.slice(0, stdout.indexOf("Configuration written to"));
    expect(listed).toMatch(/- running +/);
    expect(listed).toMatch(/- needs_intervention +/);
    expect(listed).not.toMatch(/- (queued|interrupted|starting|ready) /);
    // How to connect a client, then the tour through the spawned read server.
    expect(stdout).toMatch(/T3_CONNECTOR_CONFIG=\S+ node \S+t3-connector\.js serve/);
    expect(stdout).toMatch(/\d+ threads, complete: true/);
    expect(stdout).toContain("answer with t3_escrever_runtime_request_answer");
    expect(stdout).toContain("returnReason terminal, state completed");

    const configPath = /T3_CONNECTOR_CONFIG=(\S+)/.exec(stdout)?.[1];
    expect(configPath).toBeDefined();
    const configDir = path.dirname(configPath as string);
    try {
      // The write gate ran on the demo's write.json, said where and with which code, and was stopped.
      expect(stdout).toMatch(/approval page: http:\/\/localhost:\d+\//);
      const enrollmentCode = /one-time passkey enrollment code: (\S+)/.exec(stdout)?.[1];
      expect(enrollmentCode).toMatch(/^[A-Z0-9]{4}(-[A-Z0-9]{4}){3}$/);
      const writeConfig = JSON.parse(await readFile(path.join(configDir, "write.json"), "utf8")) as {
        stateDir: string;
        environments: Record<string, { tokenFile: string }>;
      };
      expect(Object.keys(writeConfig.environments)).toEqual(["alpha", "beta"]);
      for (const env of Object.values(writeConfig.environments)) {
        expect(env.tokenFile).toMatch(/\.operate\.token$/);
        expect((await stat(env.tokenFile)).mode & 0o777).toBe(0o600);
      }
      const audit = await readFile(path.join(writeConfig.stateDir, "audit.log"), "utf8");
      expect(audit).toContain("gate_started");
      expect(audit).toContain("gate_stopped");
      expect(audit).not.toContain(enrollmentCode as string);
      // A stopped gate removes its relay capability.
      await expect(access(path.join(writeConfig.stateDir, "relay-capability"))).rejects.toThrow();
      const config = JSON.parse(await readFile(configPath as string, "utf8")) as {
        environments: Record<string, { tokenFile: string; allowedProjects: string[] }>;
      };
      // The README says reads have no default environment; the demo's config does not suggest one.
      expect(config).not.toHaveProperty("default");
      expect(Object.keys(config.environments)).toEqual(["alpha", "beta"]);
      for (const env of Object.values(config.environments)) {
        expect(env.allowedProjects.length).toBeGreaterThan(0);
        expect((await stat(env.tokenFile)).mode & 0o777).toBe(0o600);
      }
    } finally {
      await rm(configDir, { recursive: true, force: true });
    }
  });

  it("moves its write gate to a free port when 7433 is taken, e.g. by a gate of your own, and says nothing of it", async () => {
    const held = await holdPort(7433);
    try {
      const { code, stdout, stderr } = await runDemo();
      expect(code, stderr).toBe(0);
      const page = /approval page: http:\/\/localhost:(\d+)\//.exec(stdout)?.[1];
      expect(page).toBeDefined();
      expect(page).not.toBe("7433");
      expect(stderr).not.toContain("port_in_use");
      const configPath = /T3_CONNECTOR_CONFIG=(\S+)/.exec(stdout)?.[1];
      if (configPath !== undefined) await rm(path.dirname(configPath), { recursive: true, force: true });
    } finally {
      await held.release();
    }
  });

  it("with --keep, leaves configs under the config directory that the by-URL sections go on from, and says how", async () => {
    const xdg = await mkdtemp(path.join(os.tmpdir(), "t3c-demo-keep-"));
    try {
      const env = { ...process.env, XDG_CONFIG_HOME: xdg };
      const { code, stdout, stderr } = await runDemo(["--keep"], env);
      expect(code, stderr).toBe(0);
      const kept = path.join(xdg, "t3-connector", "demo");
      expect(stdout).toContain(`export T3_CONNECTOR_CONFIG=${path.join(kept, "config.json")}`);
      expect(stdout).toContain(`export T3_CONNECTOR_WRITE_CONFIG=${path.join(kept, "write.json")}`);
      expect(stdout).toContain("pnpm exec t3-connector serve --http --port 8000");
      // Kept after the demo stopped, with sign-in by URL on this machine.
      const config = JSON.parse(await readFile(path.join(kept, "config.json"), "utf8")) as {
        oauth: { issuer: string; stateDir: string };
        environments: Record<string, unknown>;
      };
      expect(config.oauth).toMatchObject({
        issuer: "http://localhost:8000",
        stateDir: path.join(kept, "oauth"),
      });
      expect(Object.keys(config.environments)).toEqual(["alpha", "beta"]);
      expect((await stat(path.join(kept, "config.json"))).mode & 0o777).toBe(0o600);
      // Again: the kept files are rewritten for the new environments, and the run still ends ready.
      const again = await runDemo(["--keep"], env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain(`export T3_CONNECTOR_CONFIG=${path.join(kept, "config.json")}`);
    } finally {
      await rm(xdg, { recursive: true, force: true });
    }
  }, 120_000);

  it("removes its configs and token files when it stops", async () => {
    const { code, stdout, stderr } = await runDemo([]);
    expect(code, stderr).toBe(0);
    const configPath = /T3_CONNECTOR_CONFIG=(\S+)/.exec(stdout)?.[1];
    expect(configPath).toBeDefined();
    await expect(access(path.dirname(configPath as string))).rejects.toThrow();
  });

  it("ends cleanly on Ctrl-C as `pnpm demo` runs it: exit 0, the gate before the simulator, nothing left in /tmp", async () => {
    // The script line pnpm hands to sh, after the build the global setup already ran: pnpm says
    // ELIFECYCLE when that shell dies of the signal or exits non-zero.
    const script = (
      JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts.demo as string;
    const [build, run] = script.split(" && ");
    // It builds only what is stale (test/build-staleness.test.ts): right after `pnpm install`, nothing.
    expect(build).toBe("node scripts/build-if-stale.mjs");
    const child: ChildProcess = spawn("sh", ["-c", run as string], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // a process group of its own, as a terminal's foreground job
    });
    let stdout = "";
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const closed = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once("close", (code, signal) => resolve([code, signal])),
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        if (stdout.includes("Press Ctrl-C")) resolve();
      });
      child.once("close", () => reject(new Error(`the demo ended before it was ready: ${stderr}`)));
    });
    // Ctrl-C: SIGINT to the whole foreground process group.
    process.kill(-(child.pid as number), "SIGINT");
    const [code, signal] = await closed;
    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
    const configPath = /T3_CONNECTOR_CONFIG=(\S+)/.exec(stdout)?.[1];
    await expect(access(path.dirname(configPath as string))).rejects.toThrow();
    // The demo stopped the gate itself (its children are in groups of their own): one SIGTERM.
    expect(stderr).toContain("t3-connector-write gate: SIGTERM, closing");
    expect(stderr).not.toContain("gate: SIGINT");
  });
});
