import type { ProjectShell, ShellSnapshot, ThreadShell } from "../t3/wire/shell.js";
import type { ShellStreamItem } from "../t3/wire/stream-items.js";
import { ThreadListIndex } from "./thread-list-index.js";

/** What one applied stream item changed, for listeners and tests. */
export type ShellChange =
  | { kind: "snapshot"; sequence: number }
  | { kind: "roots"; sequence: number }
  | { kind: "thread.updated"; sequence: number; threadId: string; location: "active" | "archive" }
  | { kind: "thread.removed"; sequence: number; threadId: string }
  | { kind: "project.updated"; sequence: number; projectId: string }
  | { kind: "project.removed"; sequence: number; projectId: string };

/**
 * One environment's shell kept up to date from its stream. Rows live in maps keyed by id (an
 * update replaces the row object, never mutates it, so a row's identity is its version); the
 * arrays of a `ShellSnapshot` are built only when read after a change. Memory is the shell itself
 * plus, at most, one materialized copy of its row lists.
 */
export class ShellState {
  #schemaVersion: number | undefined;
  #sequence = 0;
  #snapshotSequence: number | undefined;
  #threads = new Map<string, ThreadShell>();
  #archived = new Map<string, ThreadShell>();
  #projects = new Map<string, ProjectShell>();
  #roots: readonly string[] | undefined;
  #materialized: ShellSnapshot | undefined;
  /** Built on first use, then kept up to date by every applied item (dropped by a new snapshot). */
  #listIndex: ThreadListIndex | undefined;

  get hasSnapshot(): boolean {
    return this.#snapshotSequence !== undefined;
  }

  /** The highest sequence applied (the snapshot's, then each update's). */
  get sequence(): number {
    return this.#sequence;
  }

  /** `resolvedRepositoryIdentityRoots` of the snapshot pair's second copy, once it arrived. */
  get repositoryRoots(): readonly string[] | undefined {
    return this.#roots;
  }

  /** The state as the HTTP shell would answer it. Do not mutate: it is shared until the next change. */
  snapshot(): ShellSnapshot {
    this.#materialized ??= {
      ...(this.#schemaVersion === undefined ? {} : { schemaVersion: this.#schemaVersion }),
      snapshotSequence: this.#sequence,
      threads: [...this.#threads.values()],
      archivedThreads: [...this.#archived.values()],
      projects: [...this.#projects.values()],
    };
    return this.#materialized;
  }

  /**
   * The listable active threads in listing order with their counts, built on first use and then
   * maintained per item. Live: read it synchronously (no `await` between reading the snapshot and
   * reading this), so both describe the same version.
   */
  threadIndex(): ThreadListIndex {
    this.#listIndex ??= ThreadListIndex.of(this.#threads.values());
    return this.#listIndex;
  }

  /** Applies one item the resumable subscription accepted; returns what changed, if anything. */
  apply(item: ShellStreamItem): ShellChange | undefined {
    const change = this.#apply(item);
    if (change !== undefined) this.#materialized = undefined;
    return change;
  }

  #apply(item: ShellStreamItem): ShellChange | undefined {
    switch (item.kind) {
      case "snapshot": {
        const { snapshot } = item;
        if (this.hasSnapshot && item.resolvedRepositoryIdentityRoots !== undefined) {
          return this.#applyMetadata(snapshot.projects, item.resolvedRepositoryIdentityRoots);
        }
        if (snapshot.snapshotSequence === this.#snapshotSequence) return undefined; // unchanged
        this.#schemaVersion = snapshot.schemaVersion;
        this.#sequence = snapshot.snapshotSequence;
        this.#snapshotSequence = snapshot.snapshotSequence;
        this.#threads = new Map(snapshot.threads.map((thread) => [thread.id, thread]));
        this.#listIndex = undefined;
        this.#archived = new Map(snapshot.archivedThreads.map((thread) => [thread.id, thread]));
        this.#projects = new Map(snapshot.projects.map((project) => [project.id, project]));
        this.#roots = item.resolvedRepositoryIdentityRoots
          ? [...item.resolvedRepositoryIdentityRoots]
          : undefined;
        return { kind: "snapshot", sequence: this.#sequence };
      }
      case "thread.updated": {
        if (!this.hasSnapshot) return undefined;
        const { thread } = item;
        // Main-shell items always say where the row lives; without it, the row's own field decides.
        const location =
          item.location === "archive" || (item.location === undefined && thread.archivedAt)
            ? "archive"
            : "active";
        (location === "archive" ? this.#threads : this.#archived).delete(thread.id);
        (location === "archive" ? this.#archived : this.#threads).set(thread.id, thread);
        if (location === "archive") this.#listIndex?.remove(thread.id);
        else this.#listIndex?.upsert(thread);
        this.#advance(item.sequence);
        return { kind: "thread.updated", sequence: item.sequence, threadId: thread.id, location };
      }
      case "thread.removed": {
        if (!this.hasSnapshot) return undefined;
        this.#threads.delete(item.threadId);
        this.#archived.delete(item.threadId);
        this.#listIndex?.remove(item.threadId);
        this.#advance(item.sequence);
        return { kind: "thread.removed", sequence: item.sequence, threadId: item.threadId };
      }
      case "project.updated": {
        if (!this.hasSnapshot) return undefined;
        this.#projects.set(item.project.id, item.project);
        this.#advance(item.sequence);
        return { kind: "project.updated", sequence: item.sequence, projectId: item.project.id };
      }
      case "project.removed": {
        if (!this.hasSnapshot) return undefined;
        this.#projects.delete(item.projectId);
        this.#advance(item.sequence);
        return { kind: "project.removed", sequence: item.sequence, projectId: item.projectId };
      }
      default:
        // `synchronized` is the mirror's business; unknown kinds change nothing we can show.
        return undefined;
    }
  }

  /**
   * A metadata-only snapshot (the second frame of the initial pair, the opening frame of a resume,
   * an enrichment refresh): T3 sends it with `threads: []` and only some projects, so it never
   * replaces rows. It only patches the repository identity of projects already held (same id, same
   * workspace root): a listed root takes the identity as sent, even null; another keeps a known
   * one. Its sequence is not applied (the events up to it may still be on their way).
   */
  #applyMetadata(projects: readonly ProjectShell[], roots: readonly string[]): ShellChange {
    const resolved = new Set(roots);
    for (const candidate of projects) {
      const held = this.#projects.get(candidate.id);
      if (held === undefined || held.workspaceRoot !== candidate.workspaceRoot) continue;
      const identity = candidate.repositoryIdentity;
      const accept =
        (candidate.workspaceRoot !== undefined && resolved.has(candidate.workspaceRoot)) ||
        (held.repositoryIdentity == null && identity != null);
      if (accept && held.repositoryIdentity !== identity) {
        this.#projects.set(candidate.id, { ...held, repositoryIdentity: identity });
      }
    }
    this.#roots = [...new Set([...(this.#roots ?? []), ...roots])];
    return { kind: "roots", sequence: this.#sequence };
  }

  #advance(sequence: number): void {
    // Merged shell updates are not globally ordered (surprise 15): keep the highest.
    if (sequence > this.#sequence) this.#sequence = sequence;
  }
}
