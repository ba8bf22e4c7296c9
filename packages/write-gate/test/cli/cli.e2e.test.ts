import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CliIo } from "@t3-connector/core/cli-support";
import { OPERATE_SCOPES } from "@t3-connector/core/environments";
import { builtBin } from "@t3-connector/test-support/built-bins";
import { type SimWorld, startSimWorld } from "@t3-connector/test-support/sim-world";
import { afterEach, describe, expect, it } from "vitest";
import { runCli, USAGE_EXIT_CODE } from "../../src/cli.js";

const BIN = builtBin("t3-connector-write");

let world: SimWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function io(extra: Partial<CliIo> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => err.push(text) },
      ...extra,
    } satisfies CliIo,
  };
}

/** Writes the world's write config as a file (and, optionally, a read config) and returns the env. */
async function configFiles(w: SimWorld, readTokenFile?: string) {
  const entry = w.config.environments[0];
  if (entry === undefined || entry.transport.kind !== "url") throw new Error("no url environment");
  const writePath = join(w.root, "write.json");
  const readPath = join(w.root, "config.json");
  await writeFile(
    writePath,
    JSON.stringify({
      port: w.config.port,
      stateDir: w.stateDir,
      environments: {
        alpha: { environmentId: entry.environmentId, url: entry.transport.url, tokenFile: entry.tokenFile },
      },
    }),
  );
  if (readTokenFile !== undefined) {
    await writeFile(
      readPath,
      JSON.stringify({
        environments: {
          alpha: {
            environmentId: entry.environmentId,
            url: entry.transport.url,
            tokenFile: readTokenFile,
            allowedProjects: ["p"],
          },
        },
      }),
    );
  }
  return { entry, env: { T3_CONNECTOR_WRITE_CONFIG: writePath, T3_CONNECTOR_CONFIG: readPath } };
}

describe("t3-connector-write command line", () => {
  it("prints its version and its help", async () => {
    const version = io();
    expect(await runCli(["--version"], version.io)).toBe(0);
    expect(version.out.join("")).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = io();
    expect(await runCli(["--help"], help.io)).toBe(0);
    expect(help.out.join("")).toContain("pair --environment X");
  });

  it("exits with the usage code (64) on usage errors", async () => {
    for (const argv of [
      [],
      ["frobnicate"],
      ["pair"],
      ["pair", "--environment"],
      ["diagnose", "--all"],
      ["gate", "x"],
      ["bridge", "x"],
    ]) {
      const run = io();
      expect(await runCli(argv, run.io)).toBe(USAGE_EXIT_CODE);
      expect(run.out).toEqual([]);
    }
  });

  // What diagnose and pair do is the one environments command's (test/environments-command.test.ts);
  // here the write CLI's words reach it over write.json.
  it("diagnoses each environment over write.json, with --projects and --environment", async () => {
    world = await startSimWorld(["alpha"]);
    const { env } = await configFiles(world);
    const run = io({ env });
    expect(await runCli(["diagnose", "--projects", "--environment", "alpha"], run.io)).toBe(0);
    const report = JSON.parse(run.out.join("")) as { ok: boolean; environments: Record<string, unknown>[] };
    expect(report.ok).toBe(true);
    expect(report.environments[0]).toMatchObject({
      alias: "alpha",
      environmentId: world.env("alpha").environmentId,
      scopes: [...OPERATE_SCOPES].sort(),
      projectCount: 2,
    });
    expect(report.environments[0]?.inventory).toHaveLength(2);
  });

  it("pairs read + operate from a code on stdin into the token file write.json names", async () => {
    world = await startSimWorld(["alpha"]);
    const { env, entry } = await configFiles(world);
    const code = world.env("alpha").createPairingCode({ scopes: OPERATE_SCOPES });
    const run = io({ env, stdin: [`${code}\n`] });
    expect(await runCli(["pair", "--environment", "alpha"], run.io)).toBe(0);
    expect(JSON.parse(run.out.join(""))).toMatchObject({
      savedTo: entry.tokenFile,
      environment: "alpha",
      scopes: [...OPERATE_SCOPES].sort(),
    });
    expect((await readFile(entry.tokenFile, "utf8")).trim()).not.toBe(world.env("alpha").operateToken);
  });

  it("runs the gate from the installed launcher: URL and enrollment code on stderr only, SIGTERM closes it", async () => {
    world = await startSimWorld(["alpha"]);
    const { env } = await configFiles(world);
    const child = spawn(BIN, ["gate"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: string[] = [];
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk.toString()));
    const ready = new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk: Buffer) => {
        err += chunk.toString();
        if (/enrollment code: \S+/.test(err)) resolve();
      });
    });
    const exited = once(child, "exit");
    await ready;
    expect(err).toContain(`listening on http://localhost:${world.config.port}/`);
    expect(err).toMatch(/enrollment code: [A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}/);
    child.kill("SIGTERM");
    const [code] = await exited;
    expect(code).toBe(0);
    expect(out).toEqual([]);
  }, 120_000);
});
