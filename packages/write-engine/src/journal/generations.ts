/**
 * The journal's generations (ADR 0006 §14): how many times the active segment and the manifest
 * were written. They only grow; every file records what it saw of the others, so a file put back
 * from an older copy is behind a number recorded elsewhere and the open refuses it.
 *
 * The active segment is written by a group-committing adapter whose writes run one at a time and
 * serialise their snapshot when they start. A mutation that calls the adapter joins the write that
 * starts next (or starts one at once), and that write serialises exactly one generation past the
 * last serialised when the call was made: so the generation a mutation made durable is known
 * without a hook in the adapter.
 */
export class Generations {
  /** The last generation serialised (a write may still be in flight with it). */
  #serialised: number;
  /** The last generation known to be on disk. */
  #durable: number;
  /** The manifest's last durable generation. */
  manifest: number;

  constructor(active: number, manifest: number) {
    this.#serialised = active;
    this.#durable = active;
    this.manifest = manifest;
  }

  /** Called by the serialiser: the generation this write carries. */
  nextActive(): number {
    this.#serialised += 1;
    return this.#serialised;
  }

  /** The generation the write a mutation is about to join will carry. */
  upcoming(): number {
    return this.#serialised + 1;
  }

  /** That write resolved: its generation is on disk. */
  markDurable(generation: number): void {
    if (generation > this.#durable) this.#durable = generation;
  }

  get durable(): number {
    return this.#durable;
  }
}
