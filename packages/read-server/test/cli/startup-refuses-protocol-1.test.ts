import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { writeTokenFile } from "@t3-connector/core/config";
import { EnvironmentRegistry, READ_SCOPES } from "@t3-connector/core/environments";
import { startV1Server } from "@t3-connector/test-support/t3-v1-server";
import { describe, expect, it } from "vitest";
import { startStartupGate } from "../../src/cli/startup-gate.js";

// `serve` refuses to start beside a protocol-1 T3 with threads (the real 0.0.28's answers, ADR
// 0069), naming the environment and its version, instead of starting with a shape warning.
describe("serve's start-up gate and a protocol-1 server", () => {
  it("refuses with protocol_unsupported, naming the environment, its version and the upgrade", async () => {
    const v1 = await startV1Server();
    const dir = await mkdtemp(path.join(os.tmpdir(), "t3-v1-serve-"));
    const tokenFile = path.join(dir, "tokens", "old-box.token");
    await writeTokenFile(tokenFile, "read-token");
    const registry = new EnvironmentRegistry({
      environments: [
        {
          alias: "old-box",
          environmentId: v1.environmentId,
          transport: { kind: "url", url: v1.url },
          tokenFile,
        },
      ],
      requiredScopes: READ_SCOPES,
    });
    try {
      const refusal = await startStartupGate(registry).refused;
      expect(refusal.alias).toBe("old-box");
      expect(refusal.error.code).toBe("protocol_unsupported");
      expect(refusal.error.message).toContain('environment "old-box" runs T3 0.0.28');
      expect(refusal.error.message).toContain("upgrade T3 to 0.0.46 or later");
    } finally {
      await registry.close();
      await v1.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
