// The JavaScript compactors compactcheck judges, each with the formats it takes and how its
// settings are drawn from the knobs compactcheck sends with each history (so they shrink with
// it). Each returns the compacted input, converted back to the format it came in.
import { pruneMessages } from "ai";
import { TokenLimiterProcessor, ToolCallFilter } from "@mastra/core/processors";
import { trimMessages } from "@langchain/core/messages";
import { generateText } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import * as anthropic from "./convert/anthropic.js";
import * as chat from "./convert/chat.js";
import { fromLangChain, toLangChain } from "./convert/langchain.js";
import * as responses from "./convert/responses.js";

function pick(knobs, index, choices) {
  const value = (knobs && knobs[index]) || 0;
  return choices[Math.abs(value) % choices.length];
}

// A history's own items and how to put them back, per format.
function historyOf(input) {
  if (input.format === "anthropic") {
    return { model: anthropic.toModel(input.request.messages), back: (m) => ({ request: { ...input.request, messages: anthropic.fromModel(m) } }) };
  }
  if (input.format === "openai-responses") {
    return { model: responses.toModel(input.request.input), back: (m) => ({ request: { ...input.request, input: responses.fromModel(m) } }) };
  }
  return { model: chat.toModel(input.messages), back: (m) => ({ messages: chat.fromModel(m) }) };
}

// Characters / 4, the estimate every one of these libraries falls back on; a fake tokenizer
// that downloads nothing.
function approximateTokens(text) {
  return Math.ceil(text.length / 4);
}

async function aiPruneMessages(input) {
  const { model, back } = historyOf(input);
  const settings = {
    reasoning: pick(input.knobs, 0, ["before-last-message", "all", "none"]),
    toolCalls: pick(input.knobs, 1, ["before-last-2-messages", "before-last-message", "before-last-4-messages", "none"]),
    emptyMessages: pick(input.knobs, 2, ["remove", "keep"]),
  };
  return { ...back(pruneMessages({ messages: model, ...settings })), parameters: settings };
}

async function mastraTokenLimiter(input) {
  const { model, back } = historyOf(input);
  const share = pick(input.knobs, 0, [0.5, 0.75, 0.25]);
  const trimMode = pick(input.knobs, 1, ["best-fit", "contiguous"]);
  // Never below what the system prompt and the newest group (a call with its results) need, by
  // the limiter's own count: below that it refuses the request by design (a TripWire), and
  // every history would only report that.
  const probe = new TokenLimiterProcessor({ limit: 1 });
  const groups = probe.groupPromptMessages(model);
  const count = (messages) => messages.reduce((total, message) => total + probe.countPromptMessageTokens(message), 0);
  const floor = Math.ceil(
    count(model.filter((message) => message.role === "system")) + count(groups[groups.length - 1] || []) + TokenLimiterProcessor.TOKENS_PER_CONVERSATION + 1,
  );
  const limit = Math.max(floor, Math.floor(count(model) * share));
  const settings = { limit, trimMode };
  const limiter = new TokenLimiterProcessor(settings);
  const answer = await limiter.processLLMRequest({ prompt: model, state: {}, stepNumber: 0, steps: [] });
  return { ...back(answer && answer.prompt ? answer.prompt : model), parameters: settings };
}

async function mastraToolCallFilter(input) {
  const { model, back } = historyOf(input);
  const steps = pick(input.knobs, 0, [undefined, 1, 2]);
  // Which step of the agent loop this prompt is sent at: the loop's first (fresh processor
  // state, as a new or resumed run starts), or a later step of a run that began at the last
  // user message (the filter saw that prefix first, with the same state).
  const step = pick(input.knobs, 1, ["first", "later"]);
  const filter = new ToolCallFilter(steps === undefined ? {} : { filterAfterToolSteps: steps });
  const state = {};
  let lastUser = -1;
  model.forEach((message, index) => {
    if (message.role === "user") lastUser = index;
  });
  if (step === "later" && lastUser >= 0 && lastUser < model.length - 1) {
    await filter.processLLMRequest({ prompt: model.slice(0, lastUser + 1), state, stepNumber: 0, steps: [] });
  }
  const answer = await filter.processLLMRequest({ prompt: model, state, stepNumber: step === "later" ? 1 : 0, steps: [] });
  return { ...back(answer && answer.prompt ? answer.prompt : model), parameters: { filterAfterToolSteps: steps ?? null, step } };
}

function messageTokens(message) {
  const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  return approximateTokens(text) + approximateTokens(JSON.stringify(message.tool_calls || []));
}

async function langchainTrimMessages(input) {
  const converted = toLangChain(input.messages);
  const counter = (messages) => messages.reduce((total, message) => total + messageTokens(message), 0);
  const share = pick(input.knobs, 0, [0.5, 0.75, 0.25]);
  const needed = counter(converted.slice(-1)) + (converted[0] && converted[0].type === "system" ? counter(converted.slice(0, 1)) : 0);
  const maxTokens = Math.max(needed, Math.floor(counter(converted) * share));
  const settings = { maxTokens, strategy: "last", includeSystem: true, startOn: pick(input.knobs, 1, [undefined, "human"]), allowPartial: false };
  const trimmed = await trimMessages(converted, { ...settings, tokenCounter: counter });
  return { messages: fromLangChain(trimmed), parameters: { ...settings, startOn: settings.startOn ?? null, tokenCounter: "characters/4" } };
}

// What the SDK's own OpenAI Responses provider sends for pruneMessages' answer (store: false),
// captured by a fetch that never reaches the network: the provider's conversion decides which
// item ids go out. For the tests of the Responses reasoning rule, not a published target.
async function aiPruneMessagesSent(input) {
  const pruned = await aiPruneMessages(input);
  const model = responses.toModel(pruned.request.input).filter((message) => message.role !== "system");
  let sent = null;
  const fakeFetch = async (_url, init) => {
    sent = JSON.parse(init.body).input;
    const output = [{ type: "message", id: "msg_fake", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok", annotations: [] }] }];
    const body = { id: "resp_fake", object: "response", created_at: 0, status: "completed", model: "fake", output, usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 } };
    return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
  };
  const openai = createOpenAI({ apiKey: "fake-key-never-sent", fetch: fakeFetch });
  await generateText({ model: openai.responses("fake"), messages: model, providerOptions: { openai: { store: false } } });
  return { request: { ...pruned.request, input: sent }, parameters: pruned.parameters };
}

// The converters alone, for the round-trip tests: to the library's type and straight back.
async function roundTripModel(input) {
  const { model, back } = historyOf(input);
  return back(JSON.parse(JSON.stringify(model)));
}

async function roundTripLangChain(input) {
  return { messages: fromLangChain(toLangChain(input.messages)) };
}

// What each compactor does not promise, by design (docs/real-compactors.md classifies every
// violation; these rows are its "by design" ones). Judged and shown, never counted; a law of
// level 1 (the provider accepts the request) cannot be waived.
const TRIM = "trims the oldest messages to a size: it keeps no content by design";
const PRUNE = "removes old tool calls and results: that is its job";
const TRIM_WAIVERS = { goal_preserved: TRIM, constraints_preserved: TRIM, facts_preserved: TRIM };

const AI = "ai";
const MASTRA = "@mastra/core";
const LANGCHAIN = "@langchain/core";

export const TARGETS = {
  "ai-prune-messages": { compact: aiPruneMessages, formats: ["anthropic", "openai-responses"], package: AI, waivers: { facts_preserved: PRUNE } },
  // The same compactor on Responses histories, published as a target of its own.
  "ai-prune-messages-responses": { compact: aiPruneMessages, formats: ["openai-responses"], package: AI, waivers: { facts_preserved: PRUNE } },
  "mastra-token-limiter": { compact: mastraTokenLimiter, formats: ["openai-chat", "anthropic", "openai-responses"], package: MASTRA, waivers: TRIM_WAIVERS },
  "mastra-tool-call-filter": { compact: mastraToolCallFilter, formats: ["openai-chat", "anthropic", "openai-responses"], package: MASTRA, waivers: { facts_preserved: PRUNE } },
  "langchain-trim-messages": { compact: langchainTrimMessages, formats: ["openai-chat"], package: LANGCHAIN, waivers: TRIM_WAIVERS },
  "ai-prune-messages-sent": { compact: aiPruneMessagesSent, formats: ["openai-responses"], package: AI },
  "roundtrip-model-messages": { compact: roundTripModel, formats: ["openai-chat", "anthropic", "openai-responses"], package: AI },
  "roundtrip-langchain": { compact: roundTripLangChain, formats: ["openai-chat"], package: LANGCHAIN },
};
