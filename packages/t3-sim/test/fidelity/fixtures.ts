/** Loads the real captures in fixtures/t3-0.0.31 (0.0.31, a transitional V2 server). */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { REAL_FIXTURES_DIR } from "@t3-connector/test-support/real-fixtures";

export const FIXTURES_DIR = REAL_FIXTURES_DIR;

export type Json = Record<string, unknown>;

export interface TimedFrame {
  readonly seq: number;
  readonly t_ms: number;
  readonly frame: Json & { _tag: string };
}

export interface WsSide {
  readonly connection?: string;
  readonly ws_frames_sent: readonly TimedFrame[];
  readonly ws_frames_received: readonly TimedFrame[];
}

export interface Fixture {
  readonly name: string;
  readonly request: {
    readonly method: string;
    readonly path: string;
    readonly headers: Record<string, string>;
    readonly body?: unknown;
    readonly connection?: string;
    readonly ws_frames_sent?: readonly TimedFrame[];
  };
  readonly response: {
    readonly status: number;
    readonly headers?: Record<string, string>;
    readonly body?: unknown;
    readonly ws_frames_received?: readonly TimedFrame[];
  };
  readonly trigger?: WsSide & { description: string };
  readonly note: string;
}

export function loadFixtures(): Fixture[] {
  return readdirSync(FIXTURES_DIR)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({
      name: file.replace(/\.json$/, ""),
      ...JSON.parse(readFileSync(path.join(FIXTURES_DIR, file), "utf8")),
    }));
}

export const isWebSocketFixture = (fixture: Fixture): boolean => fixture.request.ws_frames_sent !== undefined;

/** Frames of one side, in wire order, each marked with its direction. */
export function wireOrder(side: WsSide): { dir: "sent" | "received"; timed: TimedFrame }[] {
  return [
    ...side.ws_frames_sent.map((timed) => ({ dir: "sent" as const, timed })),
    ...side.ws_frames_received.map((timed) => ({ dir: "received" as const, timed })),
  ].sort((a, b) => a.timed.seq - b.timed.seq);
}

export function wsSide(fixture: Fixture): WsSide {
  return {
    ...(fixture.request.connection === undefined ? {} : { connection: fixture.request.connection }),
    ws_frames_sent: fixture.request.ws_frames_sent ?? [],
    ws_frames_received: fixture.response.ws_frames_received ?? [],
  };
}
