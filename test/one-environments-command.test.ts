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
/** Where each CLI declares its command line. */
const CLI_ARGS = [
  "packages/read-server/src/cli/args.ts",
  "packages/write-gate/src/process/cli-args.ts",
  "packages/ops/src/cli/environments-commands.ts",
];
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

  it.each(Object.entries(WIRING))("%s reaches the commands through core's pairing", (_cli, file) => {
    const code = text(file);
    expect(code).toContain("@t3-connector/core/pairing");
    // The read and write CLIs print the reports as cliCommandsFor does; ops hands them to its session.
    expect(code).toMatch(/\b(cliCommandsFor|runEnvironmentsCommand)\b/);
  });

  it("runEnvironmentsCommand maps the parsed words to all five commands", () => {
    const code = text("packages/core/src/pairing/command/cli-commands.ts");
    for (const command of COMMANDS) expect(code, command).toMatch(new RegExp(`return ${command}\\(context`));
  });

  it("the words of environments, diagnose and pair are declared once, and each CLI takes them from there", () => {
    const declaring = sources.filter((file) =>
      /\.command\("(environments|ambientes|diagnose|pair|add \[alias\]|move \[alias\]|remove \[alias\])\b/.test(
        text(file),
      ),
    );
    expect(declaring).toEqual(["packages/core/src/cli-support/environments-command-line.ts"]);
    for (const file of CLI_ARGS) expect(text(file), file).toMatch(/\bdefineEnvironmentsCommandLine\(/);
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
