// OpenAI chat messages <-> the AI SDK's ModelMessage (and LanguageModelV2 prompt, which has the
// same shape: what Mastra's processLLMRequest sees). Lossless: toModel then fromModel returns
// the messages it was handed.
import { KEY, argumentsText, parseArguments, stashed, withStash, without } from "./stash.js";

const MESSAGE_KEYS = ["role", "content", "tool_calls", "tool_call_id"];

function contentShape(content) {
  if (content === null) return "null";
  if (content === undefined) return "absent";
  return typeof content === "string" ? "string" : "parts";
}

function textParts(content) {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part) =>
    part.type === "text"
      ? withStash({ type: "text", text: part.text }, { extra: without(part, ["type", "text"]) })
      : withStash({ type: "text", text: "" }, { raw: part }),
  );
}

function contentOf(parts, shape) {
  const texts = parts.filter((part) => part.type === "text");
  if (shape === "null") return null;
  if (shape === "absent") return undefined;
  if (shape === "string") return texts.map((part) => part.text).join("");
  return texts.map((part) => {
    const stash = stashed(part);
    return stash.raw !== undefined ? stash.raw : { type: "text", text: part.text, ...(stash.extra || {}) };
  });
}

export function toModel(messages) {
  const names = new Map();
  return messages.map((message, origin) => {
    const data = { origin, shape: contentShape(message.content), rest: without(message, MESSAGE_KEYS) };
    if (message.role === "system") {
      const text = typeof message.content === "string" ? message.content : contentOf(textParts(message.content), "string");
      return withStash({ role: "system", content: text }, { ...data, content: message.content });
    }
    if (message.role === "tool") {
      const text = typeof message.content === "string" ? message.content : contentOf(textParts(message.content), "string");
      const part = {
        type: "tool-result",
        toolCallId: message.tool_call_id,
        toolName: names.get(message.tool_call_id) || "unknown",
        output: { type: "text", value: text || "" },
      };
      return withStash({ role: "tool", content: [part] }, { ...data, content: message.content });
    }
    const content = textParts(message.content);
    if (message.role === "assistant") {
      for (const call of message.tool_calls || []) {
        names.set(call.id, call.function.name);
        const { input, text } = parseArguments(call.function.arguments);
        const stash = { extra: without(call, ["id", "function"]), functionExtra: without(call.function, ["name", "arguments"]) };
        if (text !== undefined) stash.arguments = text;
        content.push(withStash({ type: "tool-call", toolCallId: call.id, toolName: call.function.name, input }, stash));
      }
      data.toolCalls = message.tool_calls === undefined ? "absent" : message.tool_calls === null ? "null" : "list";
    }
    return withStash({ role: message.role, content }, data);
  });
}

export function fromModel(messages) {
  return messages.map((message) => {
    const stash = stashed(message);
    const rest = stash.rest || {};
    if (message.role === "system" || message.role === "tool") {
      const out = { role: message.role };
      if (message.role === "system") {
        out.content = stash.content !== undefined && typeof stash.content !== "string" && contentOf(textParts(stash.content), "string") === message.content ? stash.content : message.content;
      } else {
        const part = message.content.find((p) => p.type === "tool-result");
        const value = part ? part.output.value : "";
        out.tool_call_id = part ? part.toolCallId : undefined;
        out.content = stash.content !== undefined && typeof stash.content !== "string" && contentOf(textParts(stash.content), "string") === value ? stash.content : value;
      }
      return { ...out, ...rest };
    }
    const parts = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    const out = { role: message.role };
    const content = contentOf(parts, stash.shape || "parts");
    if (content !== undefined) out.content = content;
    const calls = parts.filter((part) => part.type === "tool-call");
    if (message.role === "assistant" && (calls.length > 0 || stash.toolCalls === "list")) {
      out.tool_calls = calls.map((part) => {
        const s = stashed(part);
        return { id: part.toolCallId, ...(s.extra || { type: "function" }), function: { name: part.toolName, arguments: argumentsText(part), ...(s.functionExtra || {}) } };
      });
    } else if (stash.toolCalls === "null") {
      out.tool_calls = null;
    }
    return { ...out, ...rest };
  });
}

export { KEY };
