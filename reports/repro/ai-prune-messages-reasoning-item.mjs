// Vercel AI SDK pruneMessages (ai 7.0.x) with reasoning: "before-last-message" strips the
// reasoning part of an assistant step while its function call keeps the item id the API gave it
// (providerOptions.openai.itemId): the messages it answers pair fc_1 with no reasoning item,
// the shape of "Item 'fc_...' of type 'function_call' was provided without its required
// 'reasoning' item" (vercel/ai#11036). The script then shows what the SDK's OpenAI Responses
// provider (@ai-sdk/openai 4.0.x) sends for those messages, through a fake fetch (no network):
// it drops the call's id, with store true or false, so the request it sends is one the API
// accepts. Exit 1 only if a sent item keeps an id whose reasoning item is not sent.
//
//   npm ci --prefix harnesses/node && node reports/repro/ai-prune-messages-reasoning-item.mjs
import { createRequire } from "node:module";

const require = createRequire(new URL("../../harnesses/node/package.json", import.meta.url));
const { generateText, pruneMessages } = await import(require.resolve("ai"));
const { createOpenAI } = await import(require.resolve("@ai-sdk/openai"));

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
const step = pruned[1].content.map((part) => `${part.type} (${part.providerOptions?.openai?.itemId})`);
console.log("pruneMessages answers:", step.join(", "));

let sent;
const fakeFetch = async (_url, init) => {
  sent = JSON.parse(init.body).input;
  const output = [{ type: "message", id: "msg_9", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok", annotations: [] }] }];
  const body = { id: "resp_1", object: "response", created_at: 1, status: "completed", model: "gpt-5", output, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } };
  return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
};
const openai = createOpenAI({ apiKey: "fake-key-never-sent", fetch: fakeFetch });
let rejected = false;
for (const store of [false, true]) {
  await generateText({ model: openai.responses("gpt-5"), messages: pruned, providerOptions: { openai: { store } } });
  console.log(`sent (store: ${store}):`, JSON.stringify(sent));
  const reasoningSent = sent.some((item) => item.type === "reasoning" || (item.type === "item_reference" && String(item.id).startsWith("rs_")));
  if (!reasoningSent && sent.some((item) => typeof item.id === "string" && !item.id.startsWith("rs_"))) rejected = true;
}
console.log(rejected ? "defect: a sent item keeps its id without its reasoning item" : "the sent requests keep no id without its reasoning item");
process.exit(rejected ? 1 : 0);
