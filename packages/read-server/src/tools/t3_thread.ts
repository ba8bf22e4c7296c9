import { t3ThreadContract } from "@t3-connector/mcp-tools/read-contracts";
import { locateThread } from "../by-id/locate-thread.js";
import { readThreadDetail } from "../by-id/thread-detail.js";
import { defineReadTool, READ_ONLY_ANNOTATIONS } from "../read-tool.js";

export const t3ThreadTool = defineReadTool({
  name: "t3_thread",
  title: "Read one thread",
  description:
    "Reads one thread by id: canonical state, active and latest run, pending requests with their content, and the end of the latest response. " +
    "Pass environment when you know it; without it the id is located across every environment and the call refuses when it is ambiguous or an environment did not answer. " +
    "A pending request is answered with the write bridge tool named in its nextAction (t3_escrever_runtime_request_answer or t3_escrever_runtime_request_approve), never with a message.",
  ...t3ThreadContract,
  annotations: READ_ONLY_ANNOTATIONS,
  async handler(context, input, extra) {
    const thread = await locateThread(context, input.environment, input.threadId, extra.signal);
    const options = input.maxCharacters === undefined ? {} : { maxCharacters: input.maxCharacters };
    return readThreadDetail(context, thread, options, extra.signal);
  },
});
