/**
 * The world both fan-out test files read: six simulated environments whose aliases sort the other
 * way round from their ids (so order by id is observable), and registries over any of them, with
 * per-alias overrides (a wrong token, an ssh transport through the stand-in ssh).
 */

import type { FakeSsh } from "@t3-connector/test-support/fake-ssh";
import type { TokenFiles } from "@t3-connector/test-support/token-files";
import type { EnvironmentConfig } from "../../../src/config/index.js";
import {
  type ConnectedEnvironment,
  EnvironmentRegistry,
  READ_SCOPES,
} from "../../../src/environments/index.js";
import {
  type Simulator,
  useSimulatedEnvironments,
} from "../../environments/support/simulated-environments.js";

export const ENVIRONMENTS = [
  { alias: "zulu", environmentId: "env-1" },
  { alias: "yankee", environmentId: "env-2" },
  { alias: "xray", environmentId: "env-3" },
  { alias: "whiskey", environmentId: "env-4" },
  { alias: "victor", environmentId: "env-5" },
  { alias: "uniform", environmentId: "env-6" },
];

export interface FanOutWorld {
  readonly sim: Simulator;
  readonly tokens: TokenFiles;
  registry(
    aliases: string[],
    overrides?: Record<string, Partial<EnvironmentConfig>>,
  ): Promise<EnvironmentRegistry>;
}

/** Starts the world for the calling file (vitest hooks); its parts are there once a test runs. */
export function useFanOutWorld(): FanOutWorld {
  let sim: Simulator;
  let tokens: TokenFiles;
  let fakeSsh: FakeSsh;
  const registries = useSimulatedEnvironments(
    { environments: ENVIRONMENTS.map((e) => ({ ...e, seed: "demo" as const })), clock: "real" },
    (started) => {
      ({ sim, tokens, fakeSsh } = started);
    },
  );
  const configs = (aliases: string[], overrides: Record<string, Partial<EnvironmentConfig>>) =>
    Promise.all(
      aliases.map(async (alias): Promise<EnvironmentConfig> => {
        const env = sim.environment(alias);
        return {
          alias,
          environmentId: env.environmentId,
          transport: { kind: "url", url: env.url },
          tokenFile: await tokens.write(alias, env.readToken),
          ...overrides[alias],
        };
      }),
    );
  return {
    get sim() {
      return sim;
    },
    get tokens() {
      return tokens;
    },
    async registry(aliases, overrides = {}) {
      return registries.keep(
        new EnvironmentRegistry({
          environments: await configs(aliases, overrides),
          requiredScopes: READ_SCOPES,
          ssh: { sshPath: fakeSsh.path },
        }),
      );
    },
  };
}

/** What each test fans out: one shell read, answering its thread count. */
export const readThreadCount = async (env: ConnectedEnvironment, signal: AbortSignal) =>
  (await env.http.getShell({ signal })).threads;
