import { createEnvironmentModel, type SimEnvironmentModel } from "./model/index.js";
import {
  type SimEnvironment as GenericSimEnvironment,
  type Simulator as GenericSimulator,
  type SimulatorOptions,
  startSimulatorWith,
} from "./simulator-core.js";

export type SimEnvironment = GenericSimEnvironment<SimEnvironmentModel>;
export type Simulator = GenericSimulator<SimEnvironmentModel>;

/** Starts simulated T3 environments, each on its own 127.0.0.1 port, with the real domain model. */
export function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  return startSimulatorWith(createEnvironmentModel, options);
}
