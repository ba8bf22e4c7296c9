import { spawn } from "node:child_process";
import { once } from "node:events";
import { access, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { builtFile } from "./support/built-bins.js";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtFile("scripts/demo.mjs"), "--exit-when-ready"], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
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
});
