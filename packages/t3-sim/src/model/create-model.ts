import { type EnvironmentModelOptions, SimEnvironmentModel } from "./model.js";
import { seedDemoInto } from "./seed-demo.js";

/** A new environment's model, seeded as its options say. Its own module: the seed builds on the model. */
export function createEnvironmentModel(options: EnvironmentModelOptions): SimEnvironmentModel {
  const model = new SimEnvironmentModel(options);
  if (options.seed === "demo") seedDemoInto(model);
  return model;
}
