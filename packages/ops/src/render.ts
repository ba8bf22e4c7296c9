/** Human output for a terminal: tables and icons. Scripts get JSON instead (see cli.ts). */
import type { CatalogueEntry } from "./catalogue-list.js";
import type { ThreadListing } from "./listing.js";
import type { EnvironmentStatus } from "./ops.js";
import { organisationMarks } from "./status-icons.js";

export function formatAge(seconds: number | null): string {
  if (seconds === null) return "?";
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

export function renderListing(listing: ThreadListing): string {
  const lines: string[] = [];
  for (const env of listing.environments) {
    lines.push(`${env.alias}  (${env.environmentId})`);
    if (env.projects.length === 0) lines.push("  (no threads)");
    for (const project of env.projects) {
      lines.push(`  ${project.title ?? project.projectId ?? "(no project)"}`);
      for (const thread of project.threads) {
        const marks = organisationMarks(thread);
        const suffix = marks.length === 0 ? "" : `  [${marks.join(", ")}]`;
        lines.push(
          `    ${thread.icon} ${formatAge(thread.ageSeconds).padStart(4)}  ${thread.state.padEnd(18)} ${thread.title}  ${thread.threadId}${suffix}`,
        );
      }
    }
  }
  for (const failed of listing.unreachable)
    lines.push(`✕ ${failed.alias}: ${failed.code}: ${failed.message}`);
  return `${lines.join("\n")}\n`;
}

export function renderEnvironments(statuses: readonly EnvironmentStatus[]): string {
  return `${statuses
    .map((s) => {
      const names = [s.alias, ...s.aliases].join(", ");
      const state = s.reachable ? `ok ${s.version ?? ""}`.trim() : `${s.error?.code}: ${s.error?.message}`;
      return `${s.reachable ? "●" : "✕"} ${names.padEnd(16)} ${s.transport.padEnd(12)} ${state}`;
    })
    .join("\n")}\n`;
}

export function renderCatalogue(entries: readonly CatalogueEntry[]): string {
  const width = Math.max(...entries.map((e) => e.name.length));
  const mark = (e: CatalogueEntry) => (e.supported === false ? "  (not supported by this server)" : "");
  // Actions show their risk group, as the approval page groups them (destructive stands out).
  const group = (e: CatalogueEntry) => (e.group === undefined ? "" : `[${e.group}] `.padEnd(14));
  return `${entries.map((e) => `${e.kind.padEnd(6)} ${e.name.padEnd(width)}  ${group(e)}${e.title}${mark(e)}`).join("\n")}\n`;
}

/** Any other result: indented JSON is the most readable faithful form. */
export function renderValue(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
