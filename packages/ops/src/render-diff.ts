/**
 * How `diff` and `worktree` print: the unified diff as `git diff` prints it (coloured only on a
 * terminal), `--stat` as `git diff --stat` prints it, and the worktree as a few lines.
 */

type Row = Record<string, unknown>;

interface FileRow {
  path: string;
  previousPath?: string;
  additions: number;
  deletions: number;
  binary: boolean;
  patch: string;
  truncated: boolean;
}

const files = (value: Row): FileRow[] => (Array.isArray(value.files) ? (value.files as FileRow[]) : []);

const ANSI = { bold: "\x1b[1m", red: "\x1b[31m", green: "\x1b[32m", cyan: "\x1b[36m", reset: "\x1b[0m" };

function paint(line: string, inHunk: boolean): string {
  if (!inHunk) return `${ANSI.bold}${line}${ANSI.reset}`;
  if (line.startsWith("@@")) return `${ANSI.cyan}${line}${ANSI.reset}`;
  if (line.startsWith("+")) return `${ANSI.green}${line}${ANSI.reset}`;
  if (line.startsWith("-")) return `${ANSI.red}${line}${ANSI.reset}`;
  return line;
}

function colourPatch(patch: string): string {
  let inHunk = false;
  return patch
    .split("\n")
    .map((line, index, lines) => {
      if (index === lines.length - 1 && line === "") return line;
      if (line.startsWith("diff --git ")) inHunk = false;
      else if (line.startsWith("@@")) inHunk = true;
      return paint(line, inHunk);
    })
    .join("\n");
}

function notes(value: Row): string[] {
  return typeof value.note === "string" ? [`# ${value.note}`] : [];
}

export function renderDiff(value: Row, colour: boolean): string {
  const list = files(value);
  if (list.length === 0) return `${[...notes(value), "(no changes)"].join("\n")}\n`;
  const out: string[] = notes(value);
  for (const file of list) {
    const patch = file.patch.endsWith("\n") || file.patch === "" ? file.patch : `${file.patch}\n`;
    out.push((colour ? colourPatch(patch) : patch).replace(/\n$/, ""));
    if (file.truncated) out.push(`# ${file.path}: patch cut short (the connector caps each file's patch)`);
  }
  return `${out.join("\n")}\n`;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** `git diff --stat`: one line per file (`path | N +++--`), then the total. */
export function renderDiffStat(value: Row): string {
  const list = files(value);
  const names = list.map((file) =>
    file.previousPath === undefined ? file.path : `${file.previousPath} => ${file.path}`,
  );
  const width = Math.max(0, ...names.map((name) => name.length));
  const counts = list.map((file) => (file.binary ? "Bin" : String(file.additions + file.deletions)));
  const countWidth = Math.max(0, ...counts.map((count) => count.length));
  const most = Math.max(0, ...list.map((file) => file.additions + file.deletions));
  const barWidth = Math.max(1, Math.min(50, 80 - width - countWidth - 5));
  const scale = most > barWidth ? barWidth / most : 1;
  const lines = list.map((file, index) => {
    const changed = file.additions + file.deletions;
    let plus = Math.round(file.additions * scale);
    let minus = Math.round(file.deletions * scale);
    if (file.additions > 0 && plus === 0) plus = 1;
    if (file.deletions > 0 && minus === 0) minus = 1;
    const bar = file.binary ? "" : ` ${"+".repeat(plus)}${"-".repeat(minus)}`;
    const count = (counts[index] as string).padStart(countWidth);
    return ` ${(names[index] as string).padEnd(width)} | ${count}${changed === 0 && !file.binary ? "" : bar}`;
  });
  const totals = (value.totals ?? {}) as { files?: number; additions?: number; deletions?: number };
  const parts = [plural(totals.files ?? list.length, "file changed", "files changed")];
  if ((totals.additions ?? 0) > 0 || (totals.deletions ?? 0) === 0)
    parts.push(plural(totals.additions ?? 0, "insertion(+)", "insertions(+)"));
  if ((totals.deletions ?? 0) > 0) parts.push(plural(totals.deletions ?? 0, "deletion(-)", "deletions(-)"));
  return `${[...notes(value), ...lines, ` ${parts.join(", ")}`].join("\n")}\n`;
}

export function renderWorktree(value: Row): string {
  const folder = (value.folder ?? {}) as Row;
  if (value.isRepo !== true) return `${String(folder.path ?? "(no folder)")}: not a git repository\n`;
  const upstream = (value.upstream ?? {}) as Row;
  const tree = (value.workingTree ?? { files: [] }) as {
    files: FileRow[];
    additions: number;
    deletions: number;
  };
  const pr = value.pullRequest as Row | null;
  const lines = [
    `${String(folder.path)}  (${folder.source === "thread_worktree" ? "the thread's worktree" : "the project's root"})`,
    `branch ${String(value.branch ?? "(detached)")}${value.isDefaultBranch === true ? " (default)" : ""}` +
      (upstream.hasUpstream === true
        ? `, ahead ${upstream.ahead}, behind ${upstream.behind}`
        : ", no upstream") +
      (typeof value.aheadOfDefault === "number"
        ? `, ${value.aheadOfDefault} ahead of the default branch`
        : ""),
  ];
  if (pr)
    lines.push(
      `pull request #${String(pr.number)} ${String(pr.state)}: ${String(pr.title)}  ${String(pr.url)}`,
    );
  lines.push(
    value.hasWorkingTreeChanges === true
      ? `uncommitted: ${plural(tree.files.length, "file", "files")}, +${tree.additions} -${tree.deletions}`
      : "no uncommitted changes",
  );
  for (const file of tree.files) lines.push(`  ${file.path}  +${file.additions} -${file.deletions}`);
  const worktrees = Array.isArray(value.worktrees) ? (value.worktrees as Row[]) : [];
  if (worktrees.length > 0) lines.push("worktrees:");
  for (const worktree of worktrees)
    lines.push(
      `  ${worktree.isThreadFolder === true ? "*" : " "} ${String(worktree.branch)}  ${String(worktree.path)}`,
    );
  return `${lines.join("\n")}\n`;
}
