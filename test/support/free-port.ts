/**
 * A free loopback port for a server a test must name before it listens: the gate's configured
 * port, an OAuth issuer's URL, the simulator's `--port`.
 *
 * Why not `listen(0)` and close: the port the OS chose is back in its ephemeral pool the moment it
 * is closed, and the OS hands it out again, as the source port of any outgoing connection or to
 * another test worker's `listen(0)`, before our server binds it. On a busy machine that is a rare
 * EADDRINUSE, a failure no rerun reproduces.
 *
 * So the ports come from below the OS's ephemeral range, which the OS never hands out by itself,
 * and each vitest worker (`VITEST_POOL_ID`) takes its own slice of them, so two workers of one run
 * never pick the same port. A port is checked free by binding it once, which skips a port a
 * service of the machine or an earlier test of this worker still holds.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Ports per worker; a worker cycles through its slice, so a port is reused only after this many. */
const SLICE = 200;
/** Slices below the ephemeral range; a worker whose id is past it shares a slice (bind-checked). */
const SLICES = 64;
/** Where macOS and IANA start the ephemeral range, for systems without Linux's /proc setting. */
const IANA_DYNAMIC_LOW = 49_152;

function ephemeralLow(): number {
  try {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const value = Number(low);
    if (Number.isInteger(value) && value - SLICES * SLICE > 1024) return value;
  } catch {
    // Not Linux: the IANA range below.
  }
  return IANA_DYNAMIC_LOW;
}

const pool = Number(process.env.VITEST_POOL_ID ?? "1");
const sliceStart = ephemeralLow() - (((Number.isInteger(pool) ? pool : 1) % SLICES) + 1) * SLICE;
/** Where this worker looks next; random at first so two test runs side by side rarely meet. */
let cursor = Math.floor(Math.random() * SLICE);

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

/** The first of `count` consecutive free ports (default one) in this worker's slice. */
export async function freePort(count = 1): Promise<number> {
  for (let tried = 0; tried < SLICE; tried++) {
    const first = sliceStart + (cursor % (SLICE - count + 1));
    cursor = (cursor + count) % SLICE;
    let free = true;
    for (let offset = 0; offset < count && free; offset++) free = await bindable(first + offset);
    if (free) return first;
  }
  throw new Error(`no ${count} free consecutive port(s) between ${sliceStart} and ${sliceStart + SLICE - 1}`);
}
