import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useDemoAlpha } from "./demo-alpha.js";
import type { Frame, RawRpcClient, TestEnv } from "./helpers.js";

let env: TestEnv;
const alpha = useDemoAlpha((started) => {
  env = started;
});
const connect = (token = env.readToken): Promise<RawRpcClient> => alpha.connect(token);

async function firstThreadId(): Promise<string> {
  const response = await fetch(`${env.url}/api/orchestration/shell`, {
    headers: { authorization: `Bearer ${env.readToken}`, "x-t3-orchestration-protocol": "2" },
  });
  const id = ((await response.json()) as { threads: { id: string }[] }).threads[0]?.id;
  if (!id) throw new Error("the demo seed has no thread");
  return id;
}

const isChunk = (id: string) => (f: Frame) => f._tag === "Chunk" && f.requestId === id;

describe("framing", () => {
  it("answers Ping with a Pong that has no requestId", async () => {
    const client = await connect();
    client.send({ _tag: "Ping" });
    expect(await client.nextFrame()).toEqual({ _tag: "Pong" });
  });

  it("accepts an array of messages in one frame", async () => {
    const client = await connect();
    client.send([
      { _tag: "Ping" },
      { _tag: "Request", id: "7", tag: "server.probe", payload: {}, headers: [] },
    ]);
    expect(await client.nextFrame()).toEqual({ _tag: "Pong" });
    expect(await client.nextFrame()).toEqual({
      _tag: "Exit",
      requestId: "7",
      exit: { _tag: "Success", value: {} },
    });
  });

  it("answers an unknown method tag with Exit Failure Die", async () => {
    const client = await connect();
    expect(await client.call("142", "orchestration.doesNotExist")).toEqual({
      _tag: "Exit",
      requestId: "142",
      exit: {
        _tag: "Failure",
        cause: [{ _tag: "Die", defect: "Unknown request tag: orchestration.doesNotExist" }],
      },
    });
  });

  it("answers an unknown frame _tag with a top-level Defect and keeps the socket", async () => {
    const client = await connect();
    client.send({ _tag: "Bogus" });
    expect(await client.nextFrame()).toEqual({ _tag: "Defect", defect: "Unknown request tag: Bogus" });
    client.send({ _tag: "Ping" });
    expect(await client.nextFrame()).toEqual({ _tag: "Pong" });
  });

  it("answers a frame that is not JSON with a top-level Defect", async () => {
    const client = await connect();
    client.socket.send("{not json");
    const frame = await client.nextFrame();
    expect(frame._tag).toBe("Defect");
    expect(typeof frame.defect).toBe("string");
  });

  it("runs none of an array frame's messages when one of them is unknown", async () => {
    const client = await connect();
    client.send([
      { _tag: "Request", id: "1", tag: "server.probe", payload: {}, headers: [] },
      { _tag: "Bogus" },
    ]);
    expect(await client.nextFrame()).toEqual({ _tag: "Defect", defect: "Unknown request tag: Bogus" });
    client.send({ _tag: "Ping" });
    expect(await client.nextFrame()).toEqual({ _tag: "Pong" });
  });

  it("reports the same auth descriptor in server.getConfig as in /api/auth/session", async () => {
    const client = await connect();
    const exit = await client.call("1", "server.getConfig");
    const config = (exit.exit as { value: { auth: unknown; environment: { environmentId: string } } }).value;
    const session = (await (await fetch(`${env.url}/api/auth/session`)).json()) as { auth: unknown };
    expect(config.auth).toEqual(session.auth);
    expect(config.environment.environmentId).toBe(env.environmentId);
  });

  it("sends nothing back for an Interrupt of a requestId not in flight", async () => {
    const client = await connect();
    client.send({ _tag: "Interrupt", requestId: "9999" });
    client.send({ _tag: "Ping" });
    // Frames are ordered on the socket: had the Interrupt been answered, that answer would come first.
    expect(await client.nextFrame()).toEqual({ _tag: "Pong" });
  });

  it("ignores requests after Eof but still answers Ping", async () => {
    const client = await connect();
    client.send({ _tag: "Eof" });
    client.request("1", "server.probe");
    client.send({ _tag: "Ping" });
    expect(await client.nextFrame()).toEqual({ _tag: "Pong" });
  });
});

describe("streams", () => {
  it("holds a second Chunk until the first one is Acked", async () => {
    const threadId = await firstThreadId();
    const gated = await connect();
    const witness = await connect();
    const operator = await connect(env.operateToken);

    gated.request("10", "orchestration.subscribeShell", {});
    const first = await gated.next(isChunk("10"));
    expect((first.values as { kind: string }[])[0]?.kind).toBe("snapshot");

    witness.request("20", "orchestration.subscribeShell", {});
    await witness.next(isChunk("20"));
    witness.send({ _tag: "Ack", requestId: "20" });

    const command = {
      type: "thread.metadata.update",
      commandId: randomUUID(),
      threadId,
      title: `renamed ${randomUUID()}`,
    };
    expect((await operator.call("1", "orchestration.dispatchCommand", command)).exit).toMatchObject({
      _tag: "Success",
    });
    // The witness stream was Acked, so the live update reaches it; by then the gated stream has it queued.
    const live = await witness.next(isChunk("20"));
    const updated = (live.values as { kind: string; thread?: { id: string } }[]).find(
      (v) => v.kind === "thread.updated",
    );
    expect(updated?.thread?.id).toBe(threadId);

    gated.send({ _tag: "Ping" });
    expect(await gated.nextFrame()).toEqual({ _tag: "Pong" });

    gated.send({ _tag: "Ack", requestId: "10" });
    const released = await gated.next(isChunk("10"));
    expect(released.values).toEqual(live.values);
  });

  it("answers an interrupted subscribeShell with an Interrupt cause carrying a fiberId", async () => {
    const client = await connect();
    client.request("5", "orchestration.subscribeShell", { requestCompletionMarker: true });
    await client.next(isChunk("5"));
    client.send({ _tag: "Interrupt", requestId: "5" });
    const exit = await client.next((f) => f._tag === "Exit" && f.requestId === "5");
    const cause = (exit.exit as { _tag: string; cause: { _tag: string; fiberId: unknown }[] }).cause;
    expect(exit.exit).toMatchObject({ _tag: "Failure" });
    expect(cause).toHaveLength(1);
    expect(cause[0]?._tag).toBe("Interrupt");
    expect(Number.isInteger(cause[0]?.fiberId)).toBe(true);
  });

  it("answers an interrupted subscribeThread with the Die the real server sends", async () => {
    const client = await connect();
    client.request("6", "orchestration.subscribeThread", { threadId: await firstThreadId() });
    await client.next(isChunk("6"));
    client.send({ _tag: "Ack", requestId: "6" });
    client.send({ _tag: "Interrupt", requestId: "6" });
    expect(await client.next((f) => f._tag === "Exit" && f.requestId === "6")).toEqual({
      _tag: "Exit",
      requestId: "6",
      exit: {
        _tag: "Failure",
        cause: [
          {
            _tag: "Die",
            defect:
              'Expected OrchestrationV2GetThreadProjectionError | EnvironmentAuthorizationError\n  at ["cause"]["failures"][0]["error"]',
          },
        ],
      },
    });
  });

  it("answers an interrupted subscribeServerLifecycle with the Die the real server sends", async () => {
    const client = await connect();
    client.request("9", "subscribeServerLifecycle", {});
    await client.next(isChunk("9"));
    client.send({ _tag: "Interrupt", requestId: "9" });
    const exit = await client.next((f) => f._tag === "Exit" && f.requestId === "9");
    expect(exit.exit).toEqual({
      _tag: "Failure",
      cause: [
        {
          _tag: "Die",
          defect: 'Expected never | EnvironmentAuthorizationError\n  at ["cause"]["failures"][0]["error"]',
        },
      ],
    });
  });

  it("drops the queued Chunks of an interrupted stream", async () => {
    const threadId = await firstThreadId();
    const gated = await connect();
    const witness = await connect();
    const operator = await connect(env.operateToken);
    gated.request("11", "orchestration.subscribeShell", {});
    await gated.next(isChunk("11"));
    witness.request("21", "orchestration.subscribeShell", {});
    await witness.next(isChunk("21"));
    witness.send({ _tag: "Ack", requestId: "21" });
    const command = {
      type: "thread.metadata.update",
      commandId: randomUUID(),
      threadId,
      title: `renamed ${randomUUID()}`,
    };
    const applied = await operator.call("1", "orchestration.dispatchCommand", command);
    expect(applied.exit).toMatchObject({ _tag: "Success" });
    await witness.next(isChunk("21"));
    gated.send({ _tag: "Interrupt", requestId: "11" });
    gated.send({ _tag: "Ack", requestId: "11" });
    gated.send({ _tag: "Ping" });
    expect((await gated.nextFrame())._tag).toBe("Exit");
    expect(await gated.nextFrame()).toEqual({ _tag: "Pong" });
  });

  it("answers an Interrupt of an in-flight unary call with an Interrupt cause and drops its result", async () => {
    const client = await connect();
    // Same frame: the Interrupt is read while the model call is still pending.
    client.send([
      { _tag: "Request", id: "30", tag: "server.probe", payload: {}, headers: [] },
      { _tag: "Interrupt", requestId: "30" },
    ]);
    const exit = await client.nextFrame();
    expect(exit).toMatchObject({
      _tag: "Exit",
      requestId: "30",
      exit: { _tag: "Failure", cause: [{ _tag: "Interrupt" }] },
    });
    client.send({ _tag: "Ping" });
    expect(await client.nextFrame()).toEqual({ _tag: "Pong" });
  });

  it("ends a stream the model refuses with its typed failure", async () => {
    const client = await connect();
    const exit = await client.call("8", "orchestration.subscribeThread", { threadId: randomUUID() });
    expect(exit.exit).toMatchObject({
      _tag: "Failure",
      cause: [{ _tag: "Fail", error: { _tag: "OrchestrationV2GetThreadProjectionError" } }],
    });
  });
});
