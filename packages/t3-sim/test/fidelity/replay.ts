/**
 * Replays the whole capture session, in its order, against one transitional simulator
 * environment and returns every structural difference per fixture.
 *
 * Phases follow the capture: auth and project setup (01-13e), the setup socket session with the
 * shell and thread watchers held open across it (20-37, one shared timeline), HTTP reads (40-49),
 * one socket per stream/RPC fixture with its trigger socket (50-83), final reads (90, 91).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { SimEnvironment } from "../../src/simulator.js";
import {
  type Fixture,
  isWebSocketFixture,
  type TimedFrame,
  type WsSide,
  wireOrder,
  wsSide,
} from "./fixtures.js";
import { compareHttp, type HttpAnswer, type HttpRequestPlan, sendHttp, sendUpgrade } from "./http-replay.js";
import {
  DELETED_THREAD_ID,
  PROBE_PROJECT,
  PROBE_THREAD,
  READ_ONLY_HTTP,
  SETUP_SOCKET_CLOCKS,
  type SocketClock,
  STALL_DIRECTIVE,
  STALLED_MESSAGE_FIXTURES,
} from "./replay-setup.js";
import type { Difference } from "./shape.js";
import { mergeByTime, playTimeline, type TimelineEvent } from "./timeline.js";
import { type Frame, frameRequestId, type LoggedFrame, WsChannel } from "./ws-channel.js";
import { compareTranscript } from "./ws-compare.js";

const prefixOf = (fixture: Fixture) => fixture.name.split("-")[0] ?? "";

interface ChannelSpec {
  readonly token: string;
  readonly path: string;
  readonly authorizationHeader: boolean;
}

interface WsBinding {
  readonly fixture: Fixture;
  readonly channel: string;
  readonly triggerChannel?: string;
  /** The socket carries this fixture only, so frames without a request id are its own. */
  readonly exclusive: boolean;
}

export class CaptureReplay {
  readonly differences = new Map<string, Difference[]>();
  /** What the simulator answered, per fixture: the HTTP answer or the socket's frames. */
  readonly answers = new Map<string, HttpAnswer | LoggedFrame[]>();
  readonly #channels = new Map<string, WsChannel>();
  readonly #specs = new Map<string, ChannelSpec>();
  readonly #bindings: WsBinding[] = [];
  #pairingCode: string | undefined;
  #exchangedReadToken: string | undefined;
  #upgradeTicket: string | undefined;

  constructor(
    private readonly env: SimEnvironment,
    private readonly fixtures: readonly Fixture[],
    /** Temp dir standing in for the capture machine's /home/dev/code. */
    private readonly workspace: string,
  ) {}

  async run(skipped: ReadonlySet<string>): Promise<void> {
    const todo = this.fixtures.filter((fixture) => !skipped.has(fixture.name));
    const phase = (low: string, high: string) =>
      todo.filter((fixture) => prefixOf(fixture) >= low && prefixOf(fixture) < high);
    await this.#createProbeState();
    for (const fixture of phase("01", "20")) await this.#replayHttp(fixture);
    await this.#replaySetupSession(phase("20", "40"));
    for (const fixture of phase("40", "50")) await this.#replayHttp(fixture);
    for (const fixture of phase("50", "90")) await this.#replayOwnSocket(fixture);
    for (const fixture of phase("90", "99")) await this.#replayHttp(fixture);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#channels.values()].map((channel) => channel.close()));
    this.#channels.clear();
  }

  // --- state the capture started from -------------------------------------------------------

  /** The capture's server already held the `accept-ws` project and its `acceptance probe` thread. */
  async #createProbeState(): Promise<void> {
    const answer = await sendHttp(this.env.url, {
      method: "POST",
      path: "/api/projects/mutate",
      headers: { authorization: `Bearer ${this.env.adminToken}`, "content-type": "application/json" },
      body: { ...PROBE_PROJECT, workspaceRoot: this.workspace },
    });
    if (answer.status !== 200) throw new Error(`probe project: HTTP ${answer.status}`);
    const socket = await this.#open({
      token: this.env.adminToken,
      path: "/ws?wsTicket=<ticket>",
      authorizationHeader: false,
    });
    const exit = await socket.call("probe-thread", "orchestration.dispatchCommand", PROBE_THREAD);
    await socket.close();
    if ((exit?.exit as { _tag?: string } | undefined)?._tag !== "Success")
      throw new Error("probe thread was not created");
  }

  // --- HTTP ---------------------------------------------------------------------------------

  #httpToken(fixture: Fixture): string {
    if (prefixOf(fixture) === "07") return this.#exchangedReadToken ?? this.env.readToken;
    return READ_ONLY_HTTP.has(prefixOf(fixture)) ? this.env.readToken : this.env.adminToken;
  }

  #httpPlan(fixture: Fixture): HttpRequestPlan {
    const token = this.#httpToken(fixture);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(fixture.request.headers)) {
      if (/^(connection|upgrade|sec-websocket-.*)$/i.test(name)) continue; // ws sets its own handshake
      headers[name.toLowerCase()] = value.replace("<token>", token);
    }
    let body = fixture.request.body;
    if (body && typeof body === "object") {
      const fields = { ...(body as Record<string, unknown>) };
      if (fields.subject_token === "<pairing-code>") {
        this.#pairingCode ??= this.env.createPairingCode();
        fields.subject_token = this.#pairingCode;
      }
      // The capture machine's workspace root; the sim checks roots on this machine (10a relies on that).
      if (fields.workspaceRoot === "/home/dev/code/fixtures") {
        fields.workspaceRoot = path.join(this.workspace, "fixtures");
        mkdirSync(fields.workspaceRoot as string, { recursive: true });
      }
      body = fields;
    }
    return { method: fixture.request.method, path: fixture.request.path, headers, body };
  }

  async #replayHttp(fixture: Fixture): Promise<void> {
    const plan = this.#httpPlan(fixture);
    if (prefixOf(fixture).startsWith("13")) {
      this.#upgradeTicket ??= await this.#mintTicket(this.env.adminToken);
      const url = `${this.env.url.replace(/^http/, "ws")}${plan.path.replace("<ticket>", this.#upgradeTicket)}`;
      const upgrade = await sendUpgrade(url, plan.headers);
      this.answers.set(fixture.name, upgrade);
      this.differences.set(fixture.name, compareHttp(fixture, upgrade));
      return;
    }
    const answer = await sendHttp(this.env.url, plan);
    if (prefixOf(fixture) === "05" && answer.status === 200) {
      this.#exchangedReadToken = (answer.body as { access_token?: string }).access_token;
    }
    this.answers.set(fixture.name, answer);
    this.differences.set(fixture.name, compareHttp(fixture, answer));
  }

  // --- WebSocket ----------------------------------------------------------------------------

  async #mintTicket(token: string): Promise<string> {
    const response = await fetch(`${this.env.url}/api/auth/websocket-ticket`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status !== 200) throw new Error(`websocket ticket: HTTP ${response.status}`);
    return ((await response.json()) as { ticket: string }).ticket;
  }

  async #open(spec: ChannelSpec): Promise<WsChannel> {
    const pathWithTicket = spec.path.includes("<ticket>")
      ? spec.path.replace("<ticket>", await this.#mintTicket(spec.token))
      : spec.path;
    const headers: Record<string, string> = spec.authorizationHeader
      ? { authorization: `Bearer ${spec.token}` }
      : {};
    return WsChannel.open(`${this.env.url.replace(/^http/, "ws")}${pathWithTicket}`, headers);
  }

  #spec(connection: string | undefined, requestPath: string, headers: Record<string, string>): ChannelSpec {
    const readOnly = /read/i.test(connection ?? "");
    return {
      token: readOnly ? this.env.readToken : this.env.adminToken,
      path: requestPath,
      authorizationHeader: headers.authorization !== undefined,
    };
  }

  #channel = async (name: string): Promise<WsChannel> => {
    const known = this.#channels.get(name);
    if (known) return known;
    const spec = this.#specs.get(name);
    if (!spec) throw new Error(`no channel spec for ${name}`);
    const channel = await this.#open(spec);
    this.#channels.set(name, channel);
    return channel;
  };

  #events(
    side: WsSide,
    channel: string,
    clock: SocketClock = { offsetMs: 0, receiveSkewMs: 0 },
    prepare: (frame: Frame) => Frame = (f) => f,
  ): TimelineEvent[] {
    return wireOrder(side).map(({ dir, timed }) => ({
      t: timed.t_ms + clock.offsetMs + (dir === "received" ? clock.receiveSkewMs : 0),
      channel,
      dir,
      frame: dir === "sent" ? prepare(timed.frame) : timed.frame,
    }));
  }

  /** 20-37: one ops socket for every command, a read-only socket for 35, two watchers held open. */
  async #replaySetupSession(fixtures: readonly Fixture[]): Promise<void> {
    const ops: TimelineEvent[] = [];
    const others: TimelineEvent[][] = [];
    for (const fixture of fixtures) {
      if (!isWebSocketFixture(fixture)) {
        // 22 was read ~4.5 s after 21's dispatch, before any later command (its note).
        others.push([{ t: 2_100, action: () => this.#replayHttp(fixture) }]);
        continue;
      }
      const label = fixture.request.connection ?? "";
      const name = label.split(" ")[0] ?? fixture.name;
      this.#specs.set(name, this.#spec(label, fixture.request.path, fixture.request.headers));
      const shared = name === "ops";
      this.#bindings.push({ fixture, channel: name, exclusive: !shared });
      const prepare = STALLED_MESSAGE_FIXTURES.has(fixture.name) ? withStallDirective : undefined;
      const events = this.#events(wsSide(fixture), name, SETUP_SOCKET_CLOCKS[name], prepare);
      if (shared) ops.push(...events);
      else others.push(events);
    }
    ops.push(...deleteUnknownProjectThread());
    ops.sort((a, b) => a.t - b.t);
    await playTimeline(mergeByTime([ops, ...others]), this.#channel);
    this.#collect();
    await this.close();
  }

  /** 50-83: each fixture on its own socket, with its trigger socket when it has one. */
  async #replayOwnSocket(fixture: Fixture): Promise<void> {
    const channel = fixture.name;
    this.#specs.set(
      channel,
      this.#spec(fixture.request.connection, fixture.request.path, fixture.request.headers),
    );
    const lists = [this.#events(wsSide(fixture), channel)];
    let triggerChannel: string | undefined;
    if (fixture.trigger) {
      triggerChannel = `${fixture.name}:trigger`;
      this.#specs.set(triggerChannel, this.#spec(fixture.trigger.connection, "/ws?wsTicket=<ticket>", {}));
      lists.push(this.#events(fixture.trigger, triggerChannel));
    }
    const timeline = mergeByTime(lists);
    if (prefixOf(fixture) === "52") markQuietAck(timeline, channel);
    this.#bindings.push({ fixture, channel, exclusive: true, ...(triggerChannel ? { triggerChannel } : {}) });
    await playTimeline(timeline, this.#channel);
    const last = wireOrder(wsSide(fixture)).at(-1);
    // 59's point is that nothing comes back: a short bounded wait is the only way to see silence.
    if (last?.dir === "sent") await new Promise((resolve) => setTimeout(resolve, 300));
    this.#collect();
    await this.close();
  }

  /** Turns the channels' logs into per-fixture differences for every binding not yet collected. */
  #collect(): void {
    for (const binding of this.#bindings.splice(0)) {
      const { fixture } = binding;
      const expected = wireOrder(wsSide(fixture)).map(({ dir, timed }) => ({ dir, frame: timed.frame }));
      const actual = this.#framesOf(binding.channel, requestIds(wsSide(fixture)), binding.exclusive);
      this.answers.set(fixture.name, actual);
      const out = compareTranscript(expected, actual, "");
      if (fixture.trigger && binding.triggerChannel) {
        const wantTrigger = wireOrder(fixture.trigger).map(({ dir, timed }) => ({ dir, frame: timed.frame }));
        const gotTrigger = this.#framesOf(binding.triggerChannel, requestIds(fixture.trigger), true);
        out.push(...compareTranscript(wantTrigger, gotTrigger, "trigger."));
      }
      this.differences.set(fixture.name, out);
    }
  }

  #framesOf(channel: string, ids: ReadonlySet<string>, exclusive: boolean): LoggedFrame[] {
    const log = this.#channels.get(channel)?.log ?? [];
    return log.filter(({ frame }) => {
      const id = frameRequestId(frame);
      return id === undefined ? exclusive : ids.has(id);
    });
  }
}

function requestIds(side: WsSide): Set<string> {
  const ids = new Set<string>();
  for (const { timed } of wireOrder(side)) {
    const id = frameRequestId(timed.frame);
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

/** 21/21b: the capture's server had no provider CLI, so its runs stalled in "starting" (22, 91). */
function withStallDirective(frame: Frame): Frame {
  const payload = frame.payload as Record<string, unknown> | undefined;
  if (frame._tag !== "Request" || typeof payload?.text !== "string") return frame;
  return { ...frame, payload: { ...payload, text: `${payload.text} ${STALL_DIRECTIVE}` } };
}

/**
 * Between 20c (ops seq 16) and 21 (seq 19) the capture deleted the unknown-project thread on the
 * ops socket; that exchange is not a fixture, but 36 shows its `thread.removed`.
 */
function deleteUnknownProjectThread(): TimelineEvent[] {
  const request: TimedFrame["frame"] = {
    _tag: "Request",
    id: "setup-delete",
    tag: "orchestration.dispatchCommand",
    payload: {
      type: "thread.delete",
      commandId: "6f1f3d0e-5b0a-4d8e-9a43-3c1d2b7e0a11",
      threadId: DELETED_THREAD_ID,
    },
    headers: [],
  };
  const exit: TimedFrame["frame"] = { _tag: "Exit", requestId: "setup-delete" };
  return [
    { t: 1_300, channel: "ops", dir: "sent", frame: request },
    { t: 1_301, channel: "ops", dir: "received", frame: exit },
  ];
}

/** 52 leaves its first Chunk un-Acked while the trigger runs; nothing may arrive meanwhile. */
function markQuietAck(timeline: TimelineEvent[], channel: string): void {
  const index = timeline.findIndex(
    (event) => "dir" in event && event.channel === channel && event.frame._tag === "Ack",
  );
  const event = timeline[index];
  if (event && "dir" in event) timeline[index] = { ...event, quietBeforeMs: 150 };
}
