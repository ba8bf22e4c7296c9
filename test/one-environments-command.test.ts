import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT, repoFiles } from "@t3-connector/test-support/repo-files";
import { describe, expect, it } from "vitest";

// One environments command for the three CLIs (ADR 0058): add, move, remove, pair and diagnose
// live once, in core's pairing/command/, and each CLI only names its config's kind and prints the
// report. A second implementation would need the steps below; only the command (and the modules
// that define each step) may use them.

/** What editing an environment's config, pairing a token or diagnosing one is built from. */
const STEPS = [
  "loadConfigDocument",
  "saveConfigDocument",
  "refuseExisting",
  "probeEnvironmentId",
  "removeEnvironmentFromConfig",
  "moveEnvironmentInConfig",
  "pairEnvironment",
  "pairOperateConfigs",
  "readPairingCode",
  "exchangePairingCode",
  "writeTokenFile",
  "diagnosisError",
];

/** The command itself, and the modules that define (and re-export) one of the steps. */
const ALLOWED = [
  /^packages\/core\/src\/pairing\//,
  /^packages\/core\/src\/t3\/pairing\.ts$/,
  /^packages\/core\/src\/config\/(token-file|index)\.ts$/,
  /^packages\/core\/src\/cli-support\/(diagnosis-error|index)\.ts$/,
];

const sources = repoFiles("packages").filter((file) => /^packages\/[^/]+\/src\/.*\.ts$/.test(file));
const text = (file: string) => readFileSync(path.join(REPO_ROOT, file), "utf8");

/** The five commands and where each CLI reaches them. */
const COMMANDS = ["addCommand", "moveCommand", "removeCommand", "pairCommand", "diagnoseCommand"];
const WIRING = {
  "t3-connector": "packages/read-server/src/cli/environments-commands.ts",
  "t3-connector-write": "packages/write-gate/src/process/environments-commands.ts",
  "t3-connector-ops": "packages/ops/src/cli/environments-commands.ts",
};

describe("one environments command", () => {
  it("no source outside core's pairing edits an environments config, pairs a token or diagnoses one itself", () => {
    const found = sources
      .filter((file) => !ALLOWED.some((pattern) => pattern.test(file)))
      .flatMap((file) => {
        const code = text(file);
        return STEPS.filter((step) => new RegExp(`\\b${step}\\b`).test(code)).map(
          (step) => `${file}: ${step}`,
        );
      });
    expect(found).toEqual([]);
  });

  it.each(Object.entries(WIRING))("%s reaches all five commands through core's pairing", (_cli, file) => {
    const code = text(file);
    expect(code).toContain("@t3-connector/core/pairing");
    // The read and write CLIs take the five as cliCommandsFor prints them; ops calls each itself.
    if (/\bcliCommandsFor\(/.test(code)) return;
    for (const command of COMMANDS) expect(code, command).toMatch(new RegExp(`\\b${command}\\b`));
  });

  it("cliCommandsFor hands a CLI all five", () => {
    const code = text("packages/core/src/pairing/command/cli-commands.ts");
    for (const command of COMMANDS) expect(code, command).toMatch(new RegExp(`printed\\(${command}\\)`));
  });

  it("the steps are still named as this test knows them (a rename would empty the check above)", () => {
    const pairing = sources
      .filter((file) => file.startsWith("packages/core/src/pairing/"))
      .map(text)
      .join("\n");
    for (const step of STEPS.filter(
      (name) => !["exchangePairingCode", "writeTokenFile", "diagnosisError"].includes(name),
    )) {
      expect(pairing, step).toMatch(new RegExp(`export (async )?function ${step}\\b`));
    }
  });
});
