import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  ArchivedShellSnapshotSchema,
  AuthSessionStateSchema,
  EnvironmentDescriptorSchema,
  LaunchThreadResultSchema,
  ProjectsSnapshotSchema,
  parseShellStreamItem,
  parseThreadStreamItem,
  ServerConfigSchema,
  ShellSnapshotSchema,
  ThreadProjectionSchema,
  ThreadSnapshotSchema,
} from "../../src/t3/index.js";

interface Capture {
  request: { ws_frames_sent?: { frame: Record<string, unknown> }[] };
  response: { body?: unknown; ws_frames_received?: { frame: Record<string, unknown> }[] };
}

function capture(name: string): Capture {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), "utf8")) as Capture;
}

function exitValue(name: string): unknown {
  const frames = capture(name).response.ws_frames_received ?? [];
  const exit = frames.find((f) => f.frame._tag === "Exit")?.frame.exit as { value?: unknown } | undefined;
  return exit?.value;
}

function chunkValues(name: string): unknown[] {
  return (capture(name).response.ws_frames_received ?? [])
    .filter((f) => f.frame._tag === "Chunk")
    .flatMap((f) => f.frame.values as unknown[]);
}

function decodes<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(parsed.error.message);
  return parsed.data;
}

describe("wire schemas read the real captures", () => {
  it("decodes the HTTP bodies", () => {
    expect(decodes(EnvironmentDescriptorSchema, capture("01-http-descriptor").response.body)).toMatchObject({
      environmentId: "8a83a2ed-157d-4eaa-96d9-b12040a490d5",
    });
    const admin = decodes(AuthSessionStateSchema, capture("04-http-auth-session-admin").response.body);
    expect(admin.scopes).toHaveLength(8);
    expect(
      decodes(AuthSessionStateSchema, capture("02-http-auth-session-no-token").response.body),
    ).toMatchObject({
      authenticated: false,
    });
    expect(
      decodes(ProjectsSnapshotSchema, capture("11-http-projects-list").response.body).projects,
    ).toHaveLength(2);
    const shell = decodes(ShellSnapshotSchema, capture("40-http-shell-admin").response.body);
    expect(shell.threads.length).toBeGreaterThan(0);
    const thread = decodes(ThreadSnapshotSchema, capture("42-http-thread-with-message").response.body);
    expect(thread.projection.runs[0]?.status).toBe("interrupted");
    expect(thread.projection.messages[0]?.role).toBe("user");
    decodes(ThreadSnapshotSchema, capture("46-http-thread-archived").response.body);
  });

  it("decodes the RPC answers", () => {
    const config = decodes(ServerConfigSchema, exitValue("62-ws-server-getConfig"));
    expect(config.providers.length).toBeGreaterThan(0);
    const models = config.providers.flatMap((p) => p.models);
    expect(models.some((m) => (m.capabilities?.optionDescriptors ?? []).length > 0)).toBe(true);
    expect(config.threadResumeCompletionMarker).toBe(true);
    decodes(ArchivedShellSnapshotSchema, exitValue("70-ws-getArchivedShellSnapshot"));
    decodes(ThreadProjectionSchema, exitValue("71-ws-getThreadProjection"));
    expect(decodes(LaunchThreadResultSchema, exitValue("79-ws-launchThread-admin")).resumed).toBe(false);
  });

  it("decodes every captured stream item, none as unknown", () => {
    for (const name of ["36-ws-subscribeShell-during-setup", "58-ws-subscribeArchivedShell"]) {
      const items = chunkValues(name).map(parseShellStreamItem);
      expect(items.length).toBeGreaterThan(0);
      expect(items.filter((item) => item.kind === "unknown")).toEqual([]);
    }
    for (const name of ["37-ws-subscribeThread-t1-during-commands", "56-ws-subscribeThread-afterSequence"]) {
      const items = chunkValues(name).map(parseThreadStreamItem);
      expect(items.some((item) => item.kind === "event")).toBe(true);
      expect(items.filter((item) => item.kind === "unknown")).toEqual([]);
    }
  });
});

describe("wire schemas tolerate a newer server", () => {
  it("keeps unknown fields and accepts unknown enum values", () => {
    const body = structuredClone(capture("40-http-shell-admin").response.body) as {
      threads: Record<string, unknown>[];
      brandNewRootField?: unknown;
    };
    body.brandNewRootField = { nested: true };
    const first = body.threads[0] as Record<string, unknown>;
    first.status = "hibernating";
    first.someFutureFlag = 42;
    const shell = decodes(ShellSnapshotSchema, body);
    expect(shell.threads[0]?.status).toBe("hibernating");
    expect(shell.threads[0]?.someFutureFlag).toBe(42);
    expect((shell as Record<string, unknown>).brandNewRootField).toEqual({ nested: true });
  });

  it("decodes current upstream's newer shell row fields, and rows of older servers without them", () => {
    const body = structuredClone(capture("40-http-shell-admin").response.body) as {
      threads: Record<string, unknown>[];
    };
    const older = structuredClone(body.threads[0]) as Record<string, unknown>;
    Object.assign(body.threads[0] as Record<string, unknown>, {
      lastErrorClass: "usage_limit",
      usageLimitResetAt: "2026-12-03T08:00:00.000Z",
      activeOrderKey: "a0",
      autoSettleDisabledAt: null,
      latestUserAuthoredMessageAt: "2026-12-03T07:00:00.000Z",
      activityRunStartedAt: null,
      limitRecovery: { runId: "run-1", autoResume: false },
      pullRequests: [{ host: "github.com", repository: "o/r", number: 1 }],
      pendingBackgroundTasks: [{ taskId: "t1", kind: "subagent" }],
    });
    body.threads.push({ ...older, id: "older-row" });
    const shell = decodes(ShellSnapshotSchema, body);
    expect(shell.threads[0]).toMatchObject({
      lastErrorClass: "usage_limit",
      usageLimitResetAt: "2026-12-03T08:00:00.000Z",
      activeOrderKey: "a0",
      pendingBackgroundTasks: [{ taskId: "t1", kind: "subagent" }],
    });
    expect(shell.threads.at(-1)?.usageLimitResetAt).toBeUndefined();
  });

  it("drops provider entries it cannot decode instead of failing the config", () => {
    const value = structuredClone(exitValue("62-ws-server-getConfig")) as { providers: unknown[] };
    const count = value.providers.length;
    value.providers.push({ instanceId: 7, garbage: true });
    expect(decodes(ServerConfigSchema, value).providers).toHaveLength(count);
  });

  it("keeps unknown stream kinds and event types as data", () => {
    expect(parseShellStreamItem({ kind: "workspace.updated", sequence: 9, workspace: {} })).toEqual({
      kind: "unknown",
      originalKind: "workspace.updated",
      sequence: 9,
      raw: { kind: "workspace.updated", sequence: 9, workspace: {} },
    });
    const event = parseThreadStreamItem({
      kind: "event",
      sequence: 3,
      event: { type: "brand.new-event", payload: 1 },
    });
    expect(event).toMatchObject({ kind: "event", sequence: 3, event: { type: "brand.new-event" } });
    expect(parseThreadStreamItem({ kind: "unknown-event", sequence: 4, eventType: "x.y" })).toMatchObject({
      kind: "unknown-event",
      sequence: 4,
    });
  });

  it("fails a known item kind that does not decode", () => {
    expect(() => parseThreadStreamItem({ kind: "snapshot", snapshotSequence: "nope" })).toThrow(
      expect.objectContaining({ code: "invalid_response" }),
    );
    expect(() => parseShellStreamItem({ noKind: true })).toThrow(
      expect.objectContaining({ code: "invalid_response" }),
    );
  });
});
