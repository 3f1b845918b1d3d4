// Mastra ToolCallFilter (@mastra/core 1.71.0, no filterAfterToolSteps) on the first LLM step of
// a loop whose prompt ends with the run's own tool call and result (a resumed run): it records
// every tool call id in that prompt as history and strips them, so the model never sees the
// result it is about to answer and calls the tool again (mastra-ai/mastra#24110, #24382).
//
//   npm ci --prefix harnesses/node && node reports/repro/mastra-tool-call-filter-first-step.mjs
import { createRequire } from "node:module";

const require = createRequire(new URL("../../harnesses/node/package.json", import.meta.url));
const { ToolCallFilter } = await import(require.resolve("@mastra/core/processors"));

const prompt = [
  { role: "system", content: "You are a careful coding agent." },
  { role: "user", content: [{ type: "text", text: "Read pyproject.toml." }] },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_1", toolName: "read_file", input: { path: "pyproject.toml" } }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", toolName: "read_file", output: { type: "text", value: "ok" } }] },
];
const answer = await new ToolCallFilter().processLLMRequest({ prompt, state: {}, stepNumber: 0, steps: [] });
const sent = answer && answer.prompt ? answer.prompt : prompt;
console.log(sent.map((message) => message.role).join(", "));
if (!sent.some((message) => message.role === "tool")) {
  console.log("defect: the result of the call the model just made is not sent");
  process.exit(1);
}
