/**
 * The enrollment code is a way in for whoever reads the gate's terminal, so the gate prints it only
 * while no passkey is enrolled, or when started with `gate --enroll` (which also lets the code add
 * another passkey). Enrollment failures are audited by code only (ADR 0017).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type GateHarness, startGateHarness } from "@t3-connector/test-support/gate-harness";
import { postJson } from "@t3-connector/test-support/gate-http";
import { startRealGate } from "@t3-connector/test-support/real-gate";
import { startSimWorld } from "@t3-connector/test-support/sim-world";
import { afterEach, describe, expect, it } from "vitest";
import { AUDIT_FILE } from "../../src/audit/index.js";
import { CREDENTIALS_FILE, saveCredentials } from "../../src/passkeys/index.js";
import { parseCliArgs } from "../../src/process/cli-args.js";

const CODE_LINE = /one-time passkey enrollment code: (\S+)$/;
const ENROLLED = [
  { id: "cred-1", publicKey: "AA", counter: 0, createdAt: "2026-12-01T00:00:00.000Z", name: "Desk key" },
];

let h: GateHarness | undefined;
afterEach(async () => {
  await h?.close();
  await h?.world.close();
  h = undefined;
});

async function start(options: { enrolled: boolean; enroll?: boolean }): Promise<GateHarness> {
  const world = await startSimWorld();
  if (options.enrolled) {
    // A passkey is only ever enrolled on a gate that ran, and so left its journal and audit log
    // (a state directory with credentials but no journal is a deleted journal: ADR 0006 §14).
    const first = await startGateHarness({ world });
    await first.close();
    await saveCredentials(join(world.stateDir, CREDENTIALS_FILE), ENROLLED);
  }
  h = await startGateHarness({ world, ...(options.enroll === true ? { enroll: true } : {}) });
  return h;
}

const printedCode = (logs: readonly string[]) =>
  logs.flatMap((line) => CODE_LINE.exec(line)?.[1] ?? []).at(-1);

function enrollWith(harness: GateHarness, code: string) {
  return postJson(
    harness.gate.port,
    "/api/enrollment/options",
    { code, name: "Spare key" },
    { origin: `http://localhost:${harness.gate.port}` },
  );
}

describe("the enrollment code on the gate's terminal", () => {
  it("is printed while no passkey is enrolled, and opens a registration", async () => {
    const harness = await start({ enrolled: false });
    const code = printedCode(harness.logs);
    expect(code).toMatch(/^[A-Z0-9]{4}(-[A-Z0-9]{4}){3}$/);
    const begun = await enrollWith(harness, code ?? "");
    expect(begun.status).toBe(200);
    expect(begun.body).toMatchObject({ registrationId: expect.any(String) });
  });

  it("is not printed once a passkey is enrolled; a guessed code is refused and the failure audited", async () => {
    const harness = await start({ enrolled: true });
    expect(printedCode(harness.logs)).toBeUndefined();
    expect(harness.logs.join("\n")).toMatch(/a passkey is enrolled, so no enrollment code is printed/);
    const refused = await enrollWith(harness, "ABCD-EFGH-JKMN-PQRS");
    expect(refused).toMatchObject({ status: 400, body: { error: "step_up_required" } });
    await harness.gate.audit.settled();
    const audit = await readFile(join(harness.world.stateDir, AUDIT_FILE), "utf8");
    expect(audit).toContain('"event":"enrollment_failed","code":"step_up_required"');
    expect(audit).not.toContain("ABCD-EFGH");
  });

  it("is printed with gate --enroll, and then adds a passkey beside the enrolled one", async () => {
    expect(parseCliArgs(["gate", "--enroll"])).toEqual({ kind: "gate", logLevel: "info", enroll: true });
    expect(parseCliArgs(["gate"])).toEqual({ kind: "gate", logLevel: "info" });
    const harness = await start({ enrolled: true, enroll: true });
    const code = printedCode(harness.logs);
    expect(code).toBeDefined();
    const wrong = await enrollWith(harness, "ABCD-EFGH-JKMN-PQRS");
    expect(wrong).toMatchObject({ status: 400, body: { error: "enrollment_code_invalid" } });
    const begun = await enrollWith(harness, code ?? "");
    expect(begun.status).toBe(200);
    expect(begun.body).toMatchObject({ registrationId: expect.any(String) });
  });

  it("with remoteApproval set, says where approvals' passkeys come from instead of printing a second code", async () => {
    const origin = "https://t3c.example.com";
    const gate = await startRealGate({ remoteApproval: { origin, oauthStateDir: "/nonexistent/oauth" } });
    try {
      expect(printedCode(gate.logs)).toBeUndefined();
      expect(gate.logs.join("\n")).toContain(
        `approvals use the passkeys that sign clients in at ${origin} (t3-connector oauth enroll adds one, for a phone too)`,
      );
      // The way to a localhost passkey stays: `gate --enroll` prints the code.
      await gate.restart({ enroll: true });
      expect(printedCode(gate.logs)).toMatch(/^[A-Z0-9]{4}(-[A-Z0-9]{4}){3}$/);
    } finally {
      await gate.close();
    }
  });
});
