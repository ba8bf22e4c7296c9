// The gate's start-up findings as a banner: an environment it can never operate (wrong
// environmentId, a token that cannot operate), named by alias with what to do. The same lines go
// to the gate's terminal, but the person deciding on a lease is looking at this page.

import { byId, element } from "./dom.js";

export function showWarnings(state) {
  const warnings = state.gate?.warnings ?? [];
  byId("warnings").hidden = warnings.length === 0;
  byId("warnings-list").replaceChildren(
    ...warnings.map((warning) => {
      const item = element("li", undefined, {
        "data-testid": `warning-${warning.alias}`,
        "data-code": warning.code,
      });
      item.append(
        element("strong", `${warning.alias}: writes there will fail.`),
        " ",
        element("span", warning.message, { class: "warning-what" }),
        element("span", warning.advice, { class: "warning-next" }),
      );
      return item;
    }),
  );
}
