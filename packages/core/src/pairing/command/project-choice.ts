import type { CliIo, TerminalPrompt } from "../../cli-support/index.js";
import { ConnectorError } from "../../errors.js";

export interface LiveProject {
  projectId: string;
  title: string;
}

import type { ProjectsOption } from "./requests.js";

/**
 * The projects the read server may show for a new environment: every live one, the ids given
 * (each must exist), or a choice in the terminal (numbers, or `all`). Never empty: an empty
 * allowlist would block the environment, it would not mean "all".
 */
export async function chooseProjects(
  live: readonly LiveProject[],
  option: ProjectsOption | undefined,
  prompt: TerminalPrompt | undefined,
  io: Pick<CliIo, "stderr">,
): Promise<string[]> {
  if (live.length === 0) {
    throw new ConnectorError(
      "invalid_input",
      "the environment has no project yet; add one in T3 Code, then run environments add again",
    );
  }
  if (option !== undefined && "all" in option) return live.map((project) => project.projectId);
  if (option !== undefined) {
    const known = new Set(live.map((project) => project.projectId));
    const missing = option.ids.filter((id) => !known.has(id));
    if (missing.length > 0) {
      throw new ConnectorError(
        "invalid_input",
        `--projects names ${missing.join(", ")}, which the environment does not have; it has ${describe(live)}`,
      );
    }
    return [...new Set(option.ids)];
  }
  if (prompt === undefined)
    throw new ConnectorError("invalid_input", "give --projects all or --projects ID,ID");
  io.stderr.write("Projects on this environment:\n");
  live.forEach((project, index) => {
    io.stderr.write(`  ${index + 1}. ${project.title} (${project.projectId})\n`);
  });
  for (;;) {
    const answer = await prompt.ask(
      "Projects the read server may show (numbers separated by spaces, or all): ",
    );
    const picked = pick(answer, live);
    if (picked !== undefined) return picked;
    io.stderr.write(`Type numbers from 1 to ${live.length}, or all.\n`);
  }
}

function pick(answer: string, live: readonly LiveProject[]): string[] | undefined {
  if (answer.toLowerCase() === "all") return live.map((project) => project.projectId);
  const numbers = answer.split(/[\s,]+/).filter((part) => part !== "");
  if (numbers.length === 0) return undefined;
  const chosen: string[] = [];
  for (const part of numbers) {
    const index = Number(part);
    const project = Number.isInteger(index) ? live[index - 1] : undefined;
    if (project === undefined) return undefined;
    if (!chosen.includes(project.projectId)) chosen.push(project.projectId);
  }
  return chosen;
}

function describe(live: readonly LiveProject[]): string {
  return live.map((project) => `${project.projectId} (${project.title})`).join(", ");
}
