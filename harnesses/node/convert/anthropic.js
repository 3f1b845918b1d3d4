// Anthropic Messages history <-> the AI SDK's ModelMessage, as the SDK itself represents it:
// thinking is a reasoning part with its signature in providerOptions.anthropic, redacted
// thinking a reasoning part with redactedData, tool_use a tool-call, a user turn's tool_result
// blocks a tool message before the user's own words, server tools provider-executed tool
// parts. Lossless: every message and part remembers where it came from (see stash.js).
import { argumentsText, stashed, withStash, without } from "./stash.js";

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

function assistantPart(block) {
  switch (block.type) {
    case "text":
      return withStash({ type: "text", text: block.text }, { extra: without(block, ["type", "text"]) });
    case "thinking":
      return withStash(
        { type: "reasoning", text: block.thinking },
        { extra: without(block, ["type", "thinking", "signature"]) },
        { anthropic: { signature: block.signature } },
      );
    case "redacted_thinking":
      return withStash(
        { type: "reasoning", text: "" },
        { extra: without(block, ["type", "data"]) },
        { anthropic: { redactedData: block.data } },
      );
    case "tool_use":
      return withStash(
        { type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.input },
        { extra: without(block, ["type", "id", "name", "input"]) },
      );
    case "server_tool_use":
      return withStash(
        { type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.input, providerExecuted: true },
        { extra: without(block, ["type", "id", "name", "input"]), server: true },
      );
    default:
      if (block.type && block.type.endsWith("_tool_result") && block.tool_use_id) {
        return withStash(
          { type: "tool-result", toolCallId: block.tool_use_id, toolName: block.type.replace(/_tool_result$/, ""), output: { type: "json", value: block.content ?? null } },
          { raw: block },
        );
      }
      return withStash({ type: "text", text: "" }, { raw: block });
  }
}

function userPart(block) {
  if (block.type === "text") return withStash({ type: "text", text: block.text }, { extra: without(block, ["type", "text"]) });
  if (block.type === "image" && block.source && block.source.type === "base64") {
    return withStash({ type: "file", mediaType: block.source.media_type, data: block.source.data }, { raw: block });
  }
  return withStash({ type: "text", text: "" }, { raw: block });
}

export function toModel(messages) {
  const names = new Map();
  const out = [];
  messages.forEach((message, origin) => {
    const shape = typeof message.content === "string" ? "string" : "blocks";
    const data = { origin, role: message.role, shape, rest: without(message, ["role", "content"]) };
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (message.role === "assistant") {
      for (const block of blocks) if (block.type === "tool_use" || block.type === "server_tool_use") names.set(block.id, block.name);
      out.push(withStash({ role: "assistant", content: blocks.map(assistantPart) }, data));
      return;
    }
    // A user turn: its tool_result blocks go to tool messages, its other blocks to user
    // messages, in the order they came (the SDK's own split of an Anthropic user turn).
    let current = null;
    const flush = () => {
      if (current) out.push(withStash(current, data));
      current = null;
    };
    if (blocks.length === 0) out.push(withStash({ role: "user", content: [] }, data));
    for (const block of blocks) {
      const role = block.type === "tool_result" ? "tool" : "user";
      if (!current || current.role !== role) {
        flush();
        current = { role, content: [] };
      }
      if (role === "tool") {
        const value = typeof block.content === "string" ? block.content : textOf(block.content);
        const type = block.is_error ? "error-text" : "text";
        current.content.push(
          withStash(
            { type: "tool-result", toolCallId: block.tool_use_id, toolName: names.get(block.tool_use_id) || "unknown", output: { type, value } },
            { extra: without(block, ["type", "tool_use_id", "content", "is_error"]), content: block.content, isError: block.is_error },
          ),
        );
      } else {
        current.content.push(userPart(block));
      }
    }
    flush();
  });
  return out;
}

function blockOf(part) {
  const stash = stashed(part);
  if (stash.raw !== undefined) return stash.raw;
  const extra = stash.extra || {};
  const anthropic = (part.providerOptions && part.providerOptions.anthropic) || {};
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text, ...extra };
    case "reasoning":
      if (anthropic.redactedData !== undefined) return { type: "redacted_thinking", data: anthropic.redactedData, ...extra };
      return { type: "thinking", thinking: part.text, signature: anthropic.signature, ...extra };
    case "tool-call":
      return { type: stash.server ? "server_tool_use" : "tool_use", id: part.toolCallId, name: part.toolName, input: part.input, ...extra };
    case "tool-result": {
      const block = { type: "tool_result", tool_use_id: part.toolCallId };
      const value = part.output && part.output.value;
      block.content = stash.content !== undefined && textOf(stash.content) === value ? stash.content : value;
      if (stash.isError !== undefined) block.is_error = stash.isError;
      return { ...block, ...extra };
    }
    default:
      return { type: "text", text: part.text || "" };
  }
}

export function fromModel(messages) {
  const out = [];
  let last = null;
  for (const message of messages) {
    const stash = stashed(message);
    const parts = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    const blocks = parts.map(blockOf);
    // Tool and user messages split from one Anthropic turn join again.
    if (last && stash.origin !== undefined && last.origin === stash.origin) {
      last.message.content.push(...blocks);
      continue;
    }
    const role = stash.role || (message.role === "assistant" ? "assistant" : "user");
    last = { origin: stash.origin, shape: stash.shape, message: { role, content: blocks, ...(stash.rest || {}) } };
    out.push(last);
  }
  return out.map(({ shape, message }) => {
    const only = message.content.length === 1 ? message.content[0] : null;
    if (shape === "string" && only && only.type === "text" && Object.keys(only).length === 2) {
      return { ...message, content: only.text };
    }
    return message;
  });
}

export { argumentsText };
