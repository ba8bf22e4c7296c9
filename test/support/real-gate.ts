/**
 * The real gate as the CLI runs it, in process: a simulator world, its write config written to
 * disk and read back with `loadWriteConfig` (token files 0600 in a 0700 directory), `startGate`
 * with an injected clock, the enrollment code taken from the gate's own log lines, and the relay
 * reached over a real socket with the capability read from `<stateDir>/relay-capability`.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { loadWriteConfig, type WriteConfig } from "@t3-connector/core/config";
import { RELAY_HEADER } from "@t3-connector/write-engine/relay-contract";
import { scopeFingerprint } from "../../packages/write-gate/src/approval/index.js";
import { GateLeaseKeeper, holderHashOf } from "../../packages/write-gate/src/lease/lease-keeper.js";
import { type RunningGate, startGate } from "../../packages/write-gate/src/process/index.js";
import { CAPABILITY_FILE } from "../../packages/write-gate/src/relay/index.js";
import { leaseScopeFor, simulatorWorkspace } from "./gate-harness.js";
import { type HttpAnswer, postJson } from "./gate-http.js";
import { OffsetClock } from "./sim-gate.js";
import { type SimWorld, startSimWorld } from "./sim-world.js";

const ENROLLMENT_LINE = /one-time passkey enrollment code: (\S+)$/;

export interface RealGate {
  world: SimWorld;
  config: WriteConfig;
  clock: OffsetClock;
  gate: RunningGate;
  logs: string[];
  /** The code the gate printed on its terminal (its log), and nowhere else. */
  enrollmentCode: string;
  capability(): Promise<string>;
  /** POST /relay with this boot's capability (or the one given; `null` sends none). */
  relay(body: unknown, capability?: string | null): Promise<HttpAnswer>;
  /**
   * Opens a lease narrowed to LEASED_PROJECT without a passkey ceremony (the keeper's own
   * `grant`), for attacks that need a lease to be open to mean anything; returns its id. With
   * `holderSecret`, only the caller presenting that secret holds it (as an approval for it would).
   */
  grantLease(options?: { holderSecret?: string }): Promise<string>;
  /** Stops this gate and starts a new one on the same config and state dir (a restart). */
  restart(options?: { enroll?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export interface RealGateOptions {
  /** Config entries whose environmentId is wrong (the server answers as another one), by alias. */
  readonly wrongEnvironmentId?: Readonly<Record<string, string>>;
  /** The write config's `remoteApproval` section (approval from afar, ADR 0050). */
  readonly remoteApproval?: { readonly origin: string; readonly oauthStateDir: string };
  /** Every environment's allowed project folders (`projectRoots`, ADR 0074); default none. */
  readonly projectRoots?: readonly string[];
}

/** Writes the world's write config as the user would keep it, then loads it as the CLI does. */
async function writeRealConfig(world: SimWorld, options: RealGateOptions): Promise<WriteConfig> {
  const { config } = world;
  const environments: Record<string, unknown> = {};
  for (const env of config.environments) {
    if (env.transport.kind !== "url") throw new Error("the simulator serves over a URL");
    environments[env.alias] = {
      environmentId: options.wrongEnvironmentId?.[env.alias] ?? env.environmentId,
      url: env.transport.url,
      tokenFile: env.tokenFile,
      ...(options.projectRoots === undefined ? {} : { projectRoots: options.projectRoots }),
    };
    const mode = (await stat(env.tokenFile)).mode & 0o777;
    const dirMode = (await stat(dirname(env.tokenFile))).mode & 0o777;
    if (mode !== 0o600 || dirMode !== 0o700) throw new Error(`token file modes ${mode} / ${dirMode}`);
  }
  const document = {
    port: config.port,
    stateDir: config.stateDir,
    ...(options.remoteApproval === undefined ? {} : { remoteApproval: options.remoteApproval }),
    environments,
  };
  await writeFile(config.path, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
  return loadWriteConfig({ path: config.path });
}

export async function startRealGate(options: RealGateOptions = {}): Promise<RealGate> {
  const world = await startSimWorld();
  try {
    const config = await writeRealConfig(world, options);
    const clock = new OffsetClock();
    const logs: string[] = [];
    const boot = (enroll = false) =>
      startGate({
        config,
        clock,
        log: (line) => logs.push(line),
        handleSignals: false,
        verifyWorkspace: simulatorWorkspace,
        enroll,
      });
    const capability = () => readFile(join(config.stateDir, CAPABILITY_FILE), "utf8");
    let heldSecret: string | undefined;
    const real: RealGate = {
      world,
      config,
      clock,
      gate: await boot(),
      logs,
      get enrollmentCode() {
        const codes = logs.flatMap((line) => ENROLLMENT_LINE.exec(line)?.[1] ?? []);
        const last = codes.at(-1);
        if (last === undefined) throw new Error("the gate printed no enrollment code");
        return last;
      },
      capability,
      async relay(body, given) {
        const value = given === undefined ? await capability() : given;
        // Like one bridge: the holder secret a request hands back goes with every later call that
        // can name a lease (ADR 0022), unless the test sends its own.
        const sent = withHeldSecret(body, heldSecret);
        const answer = await postJson(
          real.gate.port,
          "/relay",
          sent,
          value === null ? {} : { [RELAY_HEADER]: value },
        );
        const secret = (answer.body as { leaseSecret?: unknown } | null)?.leaseSecret;
        if (typeof secret === "string") heldSecret = secret;
        return answer;
      },
      async grantLease(grantOptions = {}) {
        const keeper = real.gate.lease;
        if (!(keeper instanceof GateLeaseKeeper))
          throw new Error("the gate's lease is not a GateLeaseKeeper");
        const scope = await leaseScopeFor(world);
        const secret = grantOptions.holderSecret;
        return keeper.grant({
          scope,
          scopeFingerprint: scopeFingerprint(scope),
          credentialId: "test-credential",
          ...(secret === undefined ? {} : { holderHash: holderHashOf(secret) }),
        }).leaseId;
      },
      async restart(restartOptions) {
        await real.gate.close();
        real.gate = await boot(restartOptions?.enroll === true);
      },
      async close() {
        await real.gate.close();
        await world.close();
      },
    };
    return real;
  } catch (error) {
    await world.close();
    throw error;
  }
}

/** The page's origin as the gate requires it (never 127.0.0.1: the Host check refuses that). */
export function pageOrigin(gate: RunningGate): string {
  return `http://localhost:${gate.port}`;
}

/** Ops that never name a lease take no holder secret. */
const OPS_WITHOUT_SECRET = new Set(["environments", "list_uncertain"]);

function withHeldSecret(body: unknown, secret: string | undefined): unknown {
  if (secret === undefined || typeof body !== "object" || body === null || "leaseSecret" in body) return body;
  const op = (body as { op?: unknown }).op;
  return typeof op === "string" && !OPS_WITHOUT_SECRET.has(op) ? { ...body, leaseSecret: secret } : body;
}
