import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The built bins, spawned: `t3-sim serve --environments 2 --config-out DIR`, an ops.json made from
// the write.json it wrote (same environments, operate tokens), and `t3-connector-ops` over it.
// The run's global setup has built them (test/support/build-once.ts).
const opsBin = builtBin("t3-connector-ops");
const simBin = builtBin("t3-sim");

let dir: string;
let sim: ChildProcess;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "t3-ops-e2e-"));
  sim = spawn(
    process.execPath,
    [simBin, "serve", "--environments", "2", "--config-out", path.join(dir, "sim")],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const lines = createInterface({ input: sim.stdout as NodeJS.ReadableStream });
  await once(lines, "line"); // the ready line: config files are written before it
  const write = JSON.parse(await readFile(path.join(dir, "sim", "write.json"), "utf8")) as {
    environments: unknown;
  };
  await writeFile(path.join(dir, "ops.json"), JSON.stringify({ environments: write.environments }), {
    mode: 0o600,
  });
}, 200_000);

afterAll(async () => {
  if (sim?.exitCode === null) {
    sim.kill("SIGTERM");
    await once(sim, "exit");
  }
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function ops(args: string[], stdin = ""): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opsBin, ...args], {
      env: { ...process.env, T3_CONNECTOR_OPS_CONFIG: path.join(dir, "ops.json") },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe("t3-connector-ops against t3-sim serve", () => {
  it("ls --json lists both environments' threads", async () => {
    const { code, stdout } = await ops(["ls", "--json"]);
    expect(code).toBe(0);
    const listing = JSON.parse(stdout) as {
      environments: { alias: string; projects: { threads: unknown[] }[] }[];
    };
    expect(listing.environments.map((env) => env.alias)).toEqual(["alpha", "beta"]);
    for (const env of listing.environments) {
      expect(env.projects.flatMap((project) => project.threads).length).toBeGreaterThan(0);
    }
  });

  it("create twice with one client request id makes one thread (created: false the second time)", async () => {
    const args = ["alpha", "create", "--project", "website", "--title", "E2E", "--instance", "codex"];
    args.push("--model", "gpt-5.6-sol", "--client-request-id", "X");
    const first = await ops(args, "the brief\n");
    expect(first.code).toBe(0);
    const created = JSON.parse(first.stdout) as { created: boolean; threadId: string };
    expect(created.created).toBe(true);
    const second = await ops(args, "the brief\n");
    expect(JSON.parse(second.stdout)).toMatchObject({ created: false, threadId: created.threadId });
    const list = JSON.parse((await ops(["ls"])).stdout) as {
      environments: { projects: { threads: { title: string }[] }[] }[];
    };
    const titles = list.environments[0]?.projects.flatMap((p) => p.threads.map((t) => t.title)) ?? [];
    expect(titles.filter((title) => title === "E2E")).toHaveLength(1);
  });

  it("--max-runtime-mode refuses a launch above it before anything is sent; at or below it, it completes", async () => {
    const titles = async () => {
      const list = JSON.parse((await ops(["ls"])).stdout) as {
        environments: { projects: { threads: { title: string }[] }[] }[];
      };
      return list.environments[0]?.projects.flatMap((p) => p.threads.map((t) => t.title)) ?? [];
    };
    const create = (runtimeMode: string, id: string) =>
      ops(
        [
          "alpha",
          "create",
          "--project",
          "website",
          "--title",
          `Ceiling ${id}`,
          "--instance",
          "codex",
          "--model",
          "gpt-5.6-sol",
          "--runtime-mode",
          runtimeMode,
          "--client-request-id",
          id,
          "--max-runtime-mode",
          "approval-required",
        ],
        "the brief\n",
      );
    const refused = await create("full-access", "ceiling-1");
    expect(refused.code, refused.stderr).toBe(67);
    expect(refused.stderr.split("\n")[0]).toMatch(
      /^t3-connector-ops: runtime_mode_above_lease: .*ceiling approval-required.*--max-runtime-mode full-access/,
    );
    expect(await titles()).not.toContain("Ceiling ceiling-1");
    const completed = await create("approval-required", "ceiling-2");
    expect(completed.code, completed.stderr).toBe(0);
    expect(await titles()).toContain("Ceiling ceiling-2");
  }, 120_000);

  it("an ambiguous reference exits non-zero and lists both threads", async () => {
    const { code, stderr } = await ops(["alpha", "thread", "e"]);
    expect(code).toBe(65);
    expect(stderr.split("\n")[0]).toMatch(/^t3-connector-ops: ambiguous_thread: "e" matches \d+ threads/);
  });
});
