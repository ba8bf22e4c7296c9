import { isConnectorError } from "@t3-connector/core";
import type { EnvironmentRegistry } from "@t3-connector/core/environments";

/** One environment in `/readyz`: its alias and state; never a URL, a host, a token or a path. */
export interface EnvironmentReadiness {
  readonly alias: string;
  /** `connected`: a verified connection is held now. `connecting`: one is being opened. */
  readonly state: "connected" | "connecting";
  /** The error code of the last attempt that failed, while not connected (e.g. `timeout`). */
  readonly lastError?: string;
}

export interface ReadinessReport {
  /** `ready` when at least one environment is connected; `stopping` once shutdown began. */
  readonly status: "ready" | "not_ready" | "stopping";
  readonly environments: readonly EnvironmentReadiness[];
}

/**
 * Readiness from the live connections. A connected environment answers at once; one that is not
 * is asked to connect (the registry shares one attempt per environment, so probes cannot pile up
 * connections), reported `connecting` now and `connected` on a later probe once it verified. So a
 * machine that came back becomes ready without waiting for a tool call to reconnect it.
 */
export class Readiness {
  readonly #registry: EnvironmentRegistry;
  readonly #log: (line: string) => void;
  readonly #lastError = new Map<string, string>();

  /** `log` hears each failed attempt a probe started (debug). */
  constructor(registry: EnvironmentRegistry, log: (line: string) => void = () => {}) {
    this.#registry = registry;
    this.#log = log;
  }

  async report(stopping: boolean): Promise<ReadinessReport> {
    const environments = await Promise.all(this.#registry.environments.map((handle) => this.#probe(handle)));
    const anyConnected = environments.some((env) => env.state === "connected");
    return {
      status: stopping ? "stopping" : anyConnected ? "ready" : "not_ready",
      environments,
    };
  }

  async #probe(handle: EnvironmentRegistry["environments"][number]): Promise<EnvironmentReadiness> {
    const opening = handle.connect().then(
      () => {
        this.#lastError.delete(handle.alias);
        return "connected" as const;
      },
      (error: unknown) => {
        const code = isConnectorError(error) ? error.code : "failed";
        this.#lastError.set(handle.alias, code);
        this.#log(`readyz: environment "${handle.alias}" did not connect (${code})`);
        return "connecting" as const;
      },
    );
    // A held connection settles in this turn's microtasks; an opening one does not.
    const nextTurn = new Promise<"connecting">((resolve) => setImmediate(() => resolve("connecting")));
    const state = await Promise.race([opening, nextTurn]);
    const lastError = state === "connected" ? undefined : this.#lastError.get(handle.alias);
    return { alias: handle.alias, state, ...(lastError === undefined ? {} : { lastError }) };
  }
}
