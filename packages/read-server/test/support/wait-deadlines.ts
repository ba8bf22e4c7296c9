import { expect, vi } from "vitest";
import { ManualTimers } from "../../../core/test/t3/support.js";
import type { ReadToolDefinition } from "../../src/read-tool.js";
import { createT3AguardarThreadTool } from "../../src/tools/t3_aguardar_thread.js";

/**
 * The deadlines of `t3_aguardar_thread` calls, passed by the test instead of waited out: a wait
 * that must stay in flight, or time out, then costs no real time and never races the machine's load.
 */
export class WaitDeadlines {
  readonly #timers = new ManualTimers();
  /** `t3_aguardar_thread` with its deadline on these timers. */
  readonly tool = createT3AguardarThreadTool({ timers: this.#timers });

  /** `definitions` with `t3_aguardar_thread` replaced by `tool`. */
  bind(definitions: readonly ReadToolDefinition[]): ReadToolDefinition[] {
    return definitions.map((definition) => (definition.name === this.tool.name ? this.tool : definition));
  }

  /** The deadline of the one wait in flight armed with `timeoutMs` passes now (once it is armed). */
  async pass(timeoutMs: number): Promise<void> {
    await vi.waitFor(() => expect(this.#timers.count(timeoutMs)).toBe(1), { timeout: 5_000, interval: 5 });
    this.#timers.fire(timeoutMs);
  }
}
