// Vercel AI SDK pruneMessages (ai 7.0.x) with reasoning: "before-last-message" strips the
// reasoning part of an assistant step while keeping its function call and that call's item id
// (providerOptions.openai.itemId). Sent to the Responses API, the call then arrives without the
// reasoning item it followed: "Item 'fc_...' of type 'function_call' was provided without its
// required 'reasoning' item" (vercel/ai#11036).
//
//   npm ci --prefix harnesses/node && node reports/repro/ai-prune-messages-reasoning-item.mjs
import { createRequire } from "node:module";

const require = createRequire(new URL("../../harnesses/node/package.json", import.meta.url));
const { pruneMessages } = await import(require.resolve("ai"));

const messages = [
  { role: "user", content: [{ type: "text", text: "Read app.py." }] },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Planning the next step.", providerOptions: { openai: { itemId: "rs_1", reasoningEncryptedContent: "opaque" } } },
      { type: "tool-call", toolCallId: "call_1", toolName: "read_file", input: { path: "app.py" }, providerOptions: { openai: { itemId: "fc_1" } } },
    ],
  },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", toolName: "read_file", output: { type: "text", value: "ok" } }] },
];
const pruned = pruneMessages({ messages, reasoning: "before-last-message" });
const step = pruned[1].content.map((part) => `${part.type}${part.providerOptions ? ` (${part.providerOptions.openai.itemId})` : ""}`);
console.log(step.join(", "));
if (!step.some((part) => part.startsWith("reasoning")) && step.some((part) => part.includes("fc_1"))) {
  console.log("defect: function call fc_1 is kept without the reasoning item rs_1 it followed");
  process.exit(1);
}
