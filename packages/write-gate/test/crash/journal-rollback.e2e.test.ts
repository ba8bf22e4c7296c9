/**
 * A journal that only moves forward (ADR 0006 §14–§15): an older `active.json` put back (alone, or
 * with the manifest and the marker, as restoring a backup of the whole state does), a journal
 * deleted together with its identity file, and an audit log edited, cut or deleted each stop the
 * built gate with `journal_damaged` naming what was found, and the spawned
 * `t3-connector-write journal verify` exits 1. A recovery lets the gate start again, and after it a
 * write the rolled-back copy had forgotten is not sent again.
 */
import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { CAPABILITY_FILE } from "../../src/relay/index.js";
import { titleWrite } from "./support/gate-process.js";
import {
  type Scenario,
  sendThroughTheGate,
  spawnWriteCli,
  useJournalScenarios,
} from "./support/journal-scenarios.js";

// Each case runs two or three gates and several CLI processes on a shared, busy machine.
vi.setConfig({ testTimeout: 120_000 });

const scenarios = useJournalScenarios({ stateDir: "rollback", config: "rollback" });
const { newScenario } = scenarios;
const spawnCli = spawnWriteCli;

/** The gate refuses to start with journal_damaged naming `file`, and verify exits 1 naming it too. */
async function expectRefusal(scene: Scenario, file: string, problem: string): Promise<string> {
  const gate = await spawnCli(scene.configPath, ["gate"]);
  expect(gate.code).toBe(1);
  expect(gate.stderr).toContain("journal_damaged");
  expect(gate.stderr).toContain(file);
  expect(await nodeFs.readdir(scene.stateDir)).not.toContain(CAPABILITY_FILE);
  const verify = await spawnCli(scene.configPath, ["journal", "verify", "--json"]);
  expect(verify.code).toBe(1);
  const report = JSON.parse(verify.stdout) as {
    status: string;
    findings: Array<{ file: string; problem: string; detail: string }>;
  };
  expect(report.status).toBe("damaged");
  expect(report.findings).toContainEqual(expect.objectContaining({ file, problem }));
  return report.findings.map((finding) => finding.detail).join("\n");
}

async function copy(stateDir: string, files: string[], to: string): Promise<void> {
  await nodeFs.mkdir(to, { recursive: true, mode: 0o700 });
  for (const file of files) await nodeFs.copyFile(join(stateDir, file), join(to, file.replaceAll("/", "__")));
}

async function putBack(stateDir: string, files: string[], from: string): Promise<void> {
  for (const file of files)
    await nodeFs.copyFile(join(from, file.replaceAll("/", "__")), join(stateDir, file));
}

describe("an older copy of the journal put back is journal_damaged", () => {
  it("an older active.json alone: named as rolled back; after recovery the forgotten write is not sent again", async () => {
    const scene = await newScenario();
    await sendThroughTheGate(scene, ["op-before-backup"]);
    const backup = join(scenarios.world.root, `backup-${scene.number}`);
    await copy(scene.stateDir, ["journal/active.json"], backup);
    await sendThroughTheGate(scene, ["op-after-backup"]);
    await putBack(scene.stateDir, ["journal/active.json"], backup);

    const detail = await expectRefusal(scene, "journal/active.json", "rolled_back");
    expect(detail).toMatch(/older copy \(generation \d+, but journal-identity\.json recorded generation \d+/);

    const recovered = await spawnCli(scene.configPath, ["journal", "recover", "--accept-loss", "--json"]);
    expect(recovered.code).toBe(0);
    expect(JSON.parse(recovered.stdout)).toMatchObject({
      recovered: true,
      unknownLoss: { files: ["journal/active.json"] },
    });
    expect((await spawnCli(scene.configPath, ["journal", "verify"])).code).toBe(0);
    const gate = await scene.gates.start();
    const retry = await scene.gates.relay(
      gate.port,
      titleWrite(gate.leaseId, "op-after-backup"),
      scene.stateDir,
    );
    expect(retry.body).toMatchObject({ error: "operation_lost" });
    expect(scene.gates.commandsFor("op-after-backup")).toBe(1);
    gate.process.kill("SIGTERM");
    await gate.exited;
  });

  it("the whole journal and its marker restored together: the audit log's lines are ahead of it", async () => {
    const scene = await newScenario();
    await sendThroughTheGate(scene, ["op-one"]);
    const files = ["journal/active.json", "journal/manifest.json", "journal-identity.json"];
    const backup = join(scenarios.world.root, `backup-${scene.number}`);
    await copy(scene.stateDir, files, backup);
    await sendThroughTheGate(scene, ["op-two"]);
    await putBack(scene.stateDir, files, backup);

    const detail = await expectRefusal(scene, "journal/active.json", "rolled_back");
    expect(detail).toMatch(/audit\.log recorded generation \d+/);
  });
});

describe("a journal deleted with its identity file is journal_damaged, not a first start", () => {
  it("the audit log shows a journal existed", async () => {
    const scene = await newScenario();
    await sendThroughTheGate(scene, ["op-erased"]);
    await nodeFs.rm(join(scene.stateDir, "journal"), { recursive: true });
    await nodeFs.rm(join(scene.stateDir, "journal-identity.json"));

    const detail = await expectRefusal(scene, "journal/", "missing");
    expect(detail).toContain("audit.log");
    expect(await nodeFs.readdir(scene.stateDir)).not.toContain("journal-identity.json");
  });
});

describe("an audit log edited, cut or deleted is journal_damaged", () => {
  const damages: Array<[string, (path: string) => Promise<void>, string]> = [
    [
      "a line edited",
      async (path) => {
        const text = await nodeFs.readFile(path, "utf8");
        await nodeFs.writeFile(
          path,
          text.replace('"operationId":"op-audit-1"', '"operationId":"op-audit-X"'),
        );
      },
      "altered",
    ],
    [
      "a line removed",
      async (path) => {
        const lines = (await nodeFs.readFile(path, "utf8")).split("\n");
        const index = lines.findIndex((line) => line.includes('"op-audit-1"'));
        lines.splice(index, 1);
        await nodeFs.writeFile(path, lines.join("\n"));
      },
      "altered",
    ],
    [
      "its last lines cut",
      async (path) => {
        const lines = (await nodeFs.readFile(path, "utf8")).trimEnd().split("\n");
        await nodeFs.writeFile(path, `${lines.slice(0, -2).join("\n")}\n`);
      },
      "truncated",
    ],
    ["deleted", (path) => nodeFs.rm(path), "missing"],
  ];

  it.each(damages)("%s", async (_label, damage, problem) => {
    const scene = await newScenario();
    await sendThroughTheGate(scene, ["op-audit-1", "op-audit-2"]);
    await damage(join(scene.stateDir, "audit.log"));
    await expectRefusal(scene, "audit.log", problem);
  });

  it("accept-unknown-loss refuses to run on an audit log that fails its check", async () => {
    const scene = await newScenario();
    await sendThroughTheGate(scene, ["op-lost-1"]);
    await nodeFs.rm(join(scene.stateDir, "journal", "active.json"));
    expect((await spawnCli(scene.configPath, ["journal", "recover", "--accept-loss"])).code).toBe(0);
    const path = join(scene.stateDir, "audit.log");
    const lines = (await nodeFs.readFile(path, "utf8")).split("\n");
    // The one line that keeps op-lost-1 refused after a lift, removed.
    await nodeFs.writeFile(path, lines.filter((line) => !line.includes('"event":"dispatch"')).join("\n"));

    const lifted = await spawnCli(scene.configPath, ["journal", "accept-unknown-loss", "--checked-t3"]);
    expect(lifted.code).not.toBe(0);
    expect(lifted.stderr).toContain("journal_damaged");
    expect(lifted.stderr).toContain("audit.log");
  });
});
