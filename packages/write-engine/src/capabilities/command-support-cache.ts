/**
 * One `CommandSupport` per environment and server version: probed once, shared by every caller
 * (approval page, gate checks, operator CLI) and replaced when a refusal proves a narrower list.
 */
import type { ConnectedEnvironment } from "@t3-connector/core/environments";
import type { CommandSupport } from "./command-support.js";
import { probeCommandSupport } from "./probe-command-support.js";

type Probe = (connection: ConnectedEnvironment) => Promise<CommandSupport>;

export class CommandSupportCache {
  readonly #known = new Map<string, CommandSupport>();
  readonly #probing = new Map<string, Promise<CommandSupport>>();
  readonly #probe: Probe;

  constructor(options: { probe?: Probe } = {}) {
    this.#probe = options.probe ?? ((connection) => probeCommandSupport(connection));
  }

  /** The support of this connection's server, probing on first use (concurrent callers share it). */
  async of(connection: ConnectedEnvironment): Promise<CommandSupport> {
    const key = cacheKey(connection.environmentId, connection.version);
    const known = this.#known.get(key);
    if (known !== undefined) return known;
    let probing = this.#probing.get(key);
    if (probing === undefined) {
      probing = this.#probe(connection).finally(() => this.#probing.delete(key));
      this.#probing.set(key, probing);
    }
    const support = await probing;
    this.#known.set(key, support);
    return support;
  }

  /** Records what a server's own answer listed (e.g. the decode defect of a refused write). */
  learn(support: CommandSupport): void {
    this.#known.set(cacheKey(support.environmentId, support.serverVersion), support);
  }
}

function cacheKey(environmentId: string, serverVersion: string | null): string {
  return `${environmentId}\u0000${serverVersion ?? ""}`;
}
