import type { TerminalPrompt } from "@t3-connector/core/cli-support";
import { describe, expect, it } from "vitest";
import { chooseProjects } from "../../src/pairing/command/project-choice.js";

const LIVE = [
  { projectId: "p-api", title: "API" },
  { projectId: "p-web", title: "Web" },
  { projectId: "p-docs", title: "Docs" },
];

/** A terminal that answers each question with the next line typed. */
function typed(...lines: string[]): TerminalPrompt & { questions: string[] } {
  const questions: string[] = [];
  return {
    questions,
    ask: async (question) => {
      questions.push(question);
      return lines.shift() ?? "";
    },
    close: () => undefined,
  };
}

function stderr() {
  const text: string[] = [];
  return { io: { stderr: { write: (line: string) => text.push(line) } }, text: () => text.join("") };
}

describe("choosing the projects of a new environment", () => {
  it("lists the projects by number in a terminal and takes the numbers typed, asking again after a wrong answer", async () => {
    const prompt = typed("2 9", "1 3 1");
    const out = stderr();
    expect(await chooseProjects(LIVE, undefined, prompt, out.io)).toEqual(["p-api", "p-docs"]);
    expect(out.text()).toContain("  2. Web (p-web)");
    expect(out.text()).toContain("Type numbers from 1 to 3, or all.");
    expect(prompt.questions).toHaveLength(2);
  });

  it("takes all, in the terminal or as --projects all", async () => {
    expect(await chooseProjects(LIVE, undefined, typed("all"), stderr().io)).toEqual([
      "p-api",
      "p-web",
      "p-docs",
    ]);
    expect(await chooseProjects(LIVE, { all: true }, undefined, stderr().io)).toEqual([
      "p-api",
      "p-web",
      "p-docs",
    ]);
  });

  it("refuses an environment without projects rather than writing an empty allowlist", async () => {
    await expect(chooseProjects([], { all: true }, undefined, stderr().io)).rejects.toMatchObject({
      code: "invalid_input",
    });
  });
});
