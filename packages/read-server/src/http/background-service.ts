import type { ReadContext } from "../read-context.js";

/**
 * Something that runs beside `serve --http` for the life of the process, sharing its read context
 * (connections and shell mirrors): started once the server listens, stopped after the requests in
 * flight were answered and before the connections close. The seam for `t3-connector events`
 * inside `serve --http`.
 */
export interface BackgroundService {
  /** For the log lines, e.g. `events`. */
  readonly name: string;
  start(): Promise<void>;
  /** Must end within the shutdown bound; a rejection is logged and shutdown continues. */
  stop(): Promise<void>;
}

/** Builds the services from the process's context; called once, after the config is loaded. */
export type BackgroundServices = (context: ReadContext) => readonly BackgroundService[];
