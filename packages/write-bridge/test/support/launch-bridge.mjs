// The smallest launcher of the bridge over stdio (the real CLI wiring belongs to
// `t3-connector-write bridge`): runs the built package with the write config given as argv[2].
import { runBridge } from "../../dist/index.js";

const bridge = await runBridge({ configPath: process.argv[2] });
await bridge.closed;
