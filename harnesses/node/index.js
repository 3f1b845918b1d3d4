// The package's public face: serve() wraps a compactor as a compactcheck harness; the
// converters let a compactor written for the AI SDK, Mastra or LangChain.js take our histories.
export { serve, answerCompact, PROTOCOL_VERSION } from "./protocol.js";
export * as chat from "./convert/chat.js";
export * as anthropic from "./convert/anthropic.js";
export * as responses from "./convert/responses.js";
export * as langchain from "./convert/langchain.js";
