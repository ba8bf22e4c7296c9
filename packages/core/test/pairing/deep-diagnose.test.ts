/**
 * `diagnose --deep` (ADR 0069) against the simulator's 0.0.46 age: as the simulator played it
 * before, every assumption holds; played the other way on every open point, the report names
 * exactly the differences a read-only probe can see. Either way it sends no write (the event
 * log gains nothing) and names no address, token, alias or id.
 */

import { readFileSync } from "node:fs";
import { type DeepReport, deepDiagnoseCommand, READ_CONFIG } from "@t3-connector/core/pairing";
import {
  profileFromReport,
  type Simulator,
  startSimulator,
  UNKNOWNS_0046_AS_BEFORE,
  UNKNOWNS_0046_OTHERWISE,
} from "@t3-connector/t3-sim";
import { type SimConfig, writeSimConfig } from "@t3-connector/test-support/sim-config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let sim: Simulator;
let config: SimConfig;
beforeAll(async () => {
  sim = await startSimulator({
    environments: [
      { alias: "gamma-box", seed: "demo", unknowns: UNKNOWNS_0046_AS_BEFORE },
      { alias: "delta-box", seed: "demo", unknowns: UNKNOWNS_0046_OTHERWISE },
    ],
  });
  config = await writeSimConfig(sim);
});
afterAll(async () => {
  await config.remove();
  await sim.close();
});

/** A CLI's I/O that reads the given read config and prints nowhere. */
function quietIo(configPath: string) {
  return {
    stdout: { write: () => true },
    stderr: { write: () => true },
    env: { T3_CONNECTOR_CONFIG: configPath },
  };
}

async function probe(alias: string, json = true) {
  const io = quietIo(config.configPath);
  const env = sim.environment(alias);
  const before = { commands: env.model.receivedCommands.length, sequence: env.model.sequence };
  const report = await deepDiagnoseCommand({ kind: READ_CONFIG, io }, { environment: alias, json });
  expect({ commands: env.model.receivedCommands.length, sequence: env.model.sequence }).toEqual(before);
  return report;
}

const statusOf = (report: DeepReport, id: string) =>
  report.assumptions.find((entry) => entry.id === id)?.status;

describe("diagnose --deep on the 0.0.46 age", () => {
  it("as the simulator played it before: nothing differs, and no write was sent", async () => {
    const { value, exitCode } = await probe("gamma-box");
    const report = value as unknown as DeepReport;
    expect(report.serverVersion).toBe("0.0.46");
    expect(report.orchestrationProtocolVersion).toBe(2);
    expect(report.assumptions.filter((entry) => entry.status === "differs")).toEqual([]);
    expect(exitCode).toBe(0);
    expect(statusOf(report, "refusal.schema-invalid")).toBe("held");
    expect(statusOf(report, "stream.thread")).toBe("held");
  });

  it("played the other way: names the absent projects route and getTurnItem, and still sends no write", async () => {
    const { value, exitCode } = await probe("delta-box");
    const report = value as unknown as DeepReport;
    const differs = report.assumptions.filter((entry) => entry.status === "differs").map((entry) => entry.id);
    expect(differs.sort()).toEqual(["route.projects", "rpc.getTurnItem"]);
    expect(report.assumptions.find((entry) => entry.id === "stream.thread")?.seen).toContain("bounded");
    expect(exitCode).toBe(1);
  });

  it("names nothing secret: no address, token, alias or id", async () => {
    const { value, text } = await probe("gamma-box", false);
    const env = sim.environment("gamma-box");
    for (const secret of [env.url, env.readToken, env.environmentId, "gamma-box", String(env.port)]) {
      expect(JSON.stringify(value)).not.toContain(secret);
      expect(text).not.toContain(secret);
    }
    expect(text).toMatch(/^T3 0\.0\.46, orchestration protocol 2: \d+ held, 0 differ/);
  });
});

describe("a report as a simulator profile", () => {
  it("the real 0.0.31's report plays an early V2 build of that version, with no open point changed", () => {
    const real = JSON.parse(
      readFileSync(
        new URL("../../../../fixtures/deep-diagnosis/t3-0.0.31-real.json", import.meta.url),
        "utf8",
      ),
    );
    expect(profileFromReport(real)).toEqual({ serverVersion: "0.0.31", transitional: true });
  });

  it("a report's differences, played back, are found again", async () => {
    const { value } = await probe("delta-box");
    const profile = profileFromReport(value);
    expect(profile.unknowns).toEqual({
      projectsRoute: "absent",
      getTurnItem: "absent",
      threadSnapshotDefault: "bounded",
    });
    const replay = await startSimulator({ environments: [{ alias: "replayed", seed: "demo", ...profile }] });
    const replayConfig = await writeSimConfig(replay);
    try {
      const io = quietIo(replayConfig.configPath);
      const again = await deepDiagnoseCommand(
        { kind: READ_CONFIG, io },
        { environment: "replayed", json: true },
      );
      const differs = (again.value as unknown as DeepReport).assumptions
        .filter((entry) => entry.status === "differs")
        .map((entry) => entry.id);
      expect(differs.sort()).toEqual(["route.projects", "rpc.getTurnItem"]);
    } finally {
      await replayConfig.remove();
      await replay.close();
    }
  });

  it("refuses a document that is not such a report", () => {
    expect(() => profileFromReport({ kind: "something else" })).toThrow(
      /not a t3-connector diagnose --deep report/,
    );
  });
});

describe("a hostile server's words in a report", () => {
  it("keeps terminal escapes and long text out of it: the version becomes a placeholder", async () => {
    const hostile = await startSimulator({
      environments: [{ alias: "hostile", seed: "demo", serverVersion: "\u001b[2J0.0.46 token=abc" }],
    });
    const hostileConfig = await writeSimConfig(hostile);
    try {
      const io = quietIo(hostileConfig.configPath);
      const { value, text } = await deepDiagnoseCommand(
        { kind: READ_CONFIG, io },
        { environment: "hostile" },
      );
      expect((value as unknown as DeepReport).serverVersion).toBe("(unprintable)");
      expect(text).not.toContain("\u001b");
      expect(text).not.toContain("token=abc");
    } finally {
      await hostileConfig.remove();
      await hostile.close();
    }
  });
});
