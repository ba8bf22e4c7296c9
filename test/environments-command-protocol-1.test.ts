import { readFile } from "node:fs/promises";
import { writeTokenFile } from "@t3-connector/core/config";
import {
  addCommand,
  diagnoseCommand,
  pairCommand,
  READ_CONFIG,
  WRITE_CONFIG,
} from "@t3-connector/core/pairing";
import { OPS_CONFIG } from "@t3-connector/ops";
import {
  type EnvironmentsMachine,
  environmentsMachine,
  exists,
  refusal,
  writeJson,
} from "@t3-connector/test-support/environments-machine";
import { startV1Server, type V1Server } from "@t3-connector/test-support/t3-v1-server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// The one environments command (ADR 0058) against a protocol-1 T3 with threads, as the real 0.0.28
// answered (ADR 0069): add and diagnose answer protocol_unsupported with the version and the
// upgrade, per kind of config file, and add keeps no token.

let m: EnvironmentsMachine;
let v1: V1Server;
afterEach(async () => {
  await m.remove();
  await v1.close();
});

describe.each([READ_CONFIG, WRITE_CONFIG, OPS_CONFIG])("a protocol-1 server ($owner config)", (kind) => {
  /** The kind's file naming the V1 server as "old-box", with a token file; answers the token file. */
  async function configureOldBox(): Promise<string> {
    const tokenFile = m.tokenFile(kind, "old-box");
    await writeTokenFile(tokenFile, "v1-access-token");
    const entry = {
      environmentId: v1.environmentId,
      url: v1.url,
      tokenFile,
      ...(kind.limitsProjects ? { allowedProjects: ["none"] } : {}),
    };
    // write.json also names the gate's port and state directory.
    const gate = kind.owner === "write" ? { port: 7433, stateDir: `${m.dir}/state` } : {};
    await writeJson(m.file(kind), { ...gate, environments: { "old-box": entry } });
    return tokenFile;
  }

  beforeEach(async () => {
    m = await environmentsMachine();
    v1 = await startV1Server({ scopes: kind.scopes });
  });

  it("environments add refuses it as protocol_unsupported, naming its version, and keeps nothing", async () => {
    const request = {
      alias: "old-box",
      transport: { url: v1.url },
      ...(kind.limitsProjects ? { projects: { all: true as const } } : {}),
    };
    const refused = await refusal(addCommand({ kind, io: m.io("A-PAIRING-CODE\n").io }, request));
    expect(refused.code).toBe("protocol_unsupported");
    expect(refused.message).toContain("T3 0.0.28");
    expect(refused.message).toContain("upgrade T3 to 0.0.46 or later");
    expect(await exists(m.tokenFile(kind, "old-box"))).toBe(false);
  });

  it("diagnose reports protocol_unsupported with the version, not an answer shape", async () => {
    await configureOldBox();
    const report = await diagnoseCommand({ kind, io: m.io().io });
    expect(report.exitCode).toBe(1);
    const [diagnosis] = report.value.environments as Array<{ error?: { code: string; message: string } }>;
    expect(diagnosis?.error?.code).toBe("protocol_unsupported");
    expect(diagnosis?.error?.message).toContain('environment "old-box" runs T3 0.0.28');
  });

  it("pair refuses it as protocol_unsupported and keeps the token file as it was", async () => {
    const tokenFile = await configureOldBox();
    const refused = await refusal(
      pairCommand({ kind, io: m.io("A-PAIRING-CODE\n").io }, { environment: "old-box" }),
    );
    expect(refused.code).toBe("protocol_unsupported");
    expect(refused.message).toContain("T3 0.0.28");
    expect((await readFile(tokenFile, "utf8")).trim()).toBe("v1-access-token");
  });
});
