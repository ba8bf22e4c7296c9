export { type GateEvent, type GateEventListener, GateEvents, type WriteRow } from "./gate-events.js";
