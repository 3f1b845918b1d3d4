// OpenAI Responses input items <-> the AI SDK's ModelMessage, as the SDK represents a Responses
// history: reasoning items are reasoning parts (one per summary entry) with their item id and
// encrypted content in providerOptions.openai, model messages and function calls are parts of
// one assistant message per step with their item ids, function_call_output items tool results.
// Lossless: every part remembers the item it came from (see stash.js).
import { argumentsText, parseArguments, stashed, withStash, without } from "./stash.js";

const MODEL_ITEMS = new Set(["reasoning", "function_call"]);

function isModelItem(item) {
  return MODEL_ITEMS.has(item.type) || (item.type === "message" && item.role === "assistant");
}

function textOf(content) {
  if (typeof content === "string") return content;
  return (content || []).map((part) => part.text || "").join("");
}

function partsOf(item, origin) {
  const openai = item.id !== undefined ? { openai: { itemId: item.id } } : {};
  if (item.type === "reasoning") {
    const rest = without(item, ["type", "id", "summary", "encrypted_content"]);
    const options = { openai: { ...(item.id !== undefined ? { itemId: item.id } : {}), reasoningEncryptedContent: item.encrypted_content ?? null } };
    const summary = item.summary || [];
    if (summary.length === 0) return [withStash({ type: "reasoning", text: "" }, { origin, rest, empty: true }, options)];
    return summary.map((entry) => withStash({ type: "reasoning", text: entry.text }, { origin, rest, extra: without(entry, ["text"]) }, options));
  }
  if (item.type === "function_call") {
    const { input, text } = parseArguments(item.arguments);
    const stash = { origin, rest: without(item, ["type", "id", "call_id", "name", "arguments"]) };
    if (text !== undefined) stash.arguments = text;
    return [withStash({ type: "tool-call", toolCallId: item.call_id, toolName: item.name, input }, stash, openai)];
  }
  if (item.type === "function_call_output") {
    const value = typeof item.output === "string" ? item.output : textOf(item.output);
    return [withStash({ type: "tool-result", toolCallId: item.call_id, toolName: "unknown", output: { type: "text", value } }, { origin, item })];
  }
  if (item.type === "message") {
    const rest = without(item, ["type", "id", "role", "content"]);
    if (typeof item.content === "string") return [withStash({ type: "text", text: item.content }, { origin, rest, shape: "string" }, openai)];
    if (item.content.length === 0) return [withStash({ type: "text", text: "" }, { origin, rest, shape: "empty" }, openai)];
    return item.content.map((part) => withStash({ type: "text", text: part.text ?? "" }, { origin, rest, part: without(part, ["text"]) }, openai));
  }
  return [withStash({ type: "text", text: "" }, { origin, raw: item })];
}

export function toModel(items) {
  const names = new Map();
  const out = [];
  items.forEach((item, origin) => {
    if (item.type === "function_call") names.set(item.call_id, item.name);
    const role = isModelItem(item)
      ? "assistant"
      : item.type === "function_call_output"
        ? "tool"
        : item.type === "message" && (item.role === "developer" || item.role === "system")
          ? "system"
          : "user";
    const parts = partsOf(item, origin);
    if (role === "tool") parts[0].toolName = names.get(item.call_id) || "unknown";
    if (role === "system") {
      out.push(withStash({ role, content: parts.map((p) => p.text).join("") }, { origin, item }));
      return;
    }
    const last = out[out.length - 1];
    if ((role === "assistant" || role === "tool") && last && last.role === role) last.content.push(...parts);
    else out.push({ role, content: parts });
  });
  return out;
}

function itemOf(parts) {
  const first = parts[0];
  const stash = stashed(first);
  if (stash.raw !== undefined) return stash.raw;
  const itemId = first.providerOptions && first.providerOptions.openai && first.providerOptions.openai.itemId;
  const id = itemId !== undefined ? { id: itemId } : {};
  switch (first.type) {
    case "reasoning": {
      const summary = stash.empty ? [] : parts.map((part) => ({ ...(stashed(part).extra || { type: "summary_text" }), text: part.text }));
      return { type: "reasoning", ...id, summary, encrypted_content: first.providerOptions.openai.reasoningEncryptedContent, ...(stash.rest || {}) };
    }
    case "tool-call":
      return { type: "function_call", ...id, call_id: first.toolCallId, name: first.toolName, arguments: argumentsText(first), ...(stash.rest || {}) };
    case "tool-result": {
      const item = stash.item || { type: "function_call_output" };
      const value = first.output.value;
      const output = item.output !== undefined && textOf(item.output) === value ? item.output : value;
      return { ...item, call_id: first.toolCallId, output };
    }
    default:
      return null;
  }
}

function messageItem(role, parts) {
  const stash = stashed(parts[0]);
  const itemId = parts[0].providerOptions && parts[0].providerOptions.openai && parts[0].providerOptions.openai.itemId;
  const item = { type: "message", role };
  if (itemId !== undefined) item.id = itemId;
  if (stash.shape === "string") item.content = parts.map((p) => p.text).join("");
  else if (stash.shape === "empty") item.content = [];
  else item.content = parts.map((part) => ({ ...(stashed(part).part || { type: role === "user" ? "input_text" : "output_text" }), text: part.text }));
  return { ...item, ...(stash.rest || {}) };
}

export function fromModel(messages) {
  const items = [];
  for (const message of messages) {
    if (message.role === "system") {
      const stash = stashed(message);
      const item = stash.item || { type: "message", role: "developer", content: message.content };
      items.push(textOf(item.content) === message.content ? item : { ...item, content: message.content });
      continue;
    }
    const parts = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    // Parts of one item (the summary entries of a reasoning item, the texts of a message) are
    // adjacent and share their origin: they become that item again.
    let group = [];
    const flush = () => {
      if (group.length === 0) return;
      const item = group[0].type === "text" && stashed(group[0]).raw === undefined ? messageItem(message.role === "assistant" ? "assistant" : "user", group) : itemOf(group);
      if (item) items.push(item);
      group = [];
    };
    for (const part of parts) {
      const origin = stashed(part).origin;
      if (group.length > 0 && (origin === undefined || stashed(group[0]).origin !== origin || group[0].type !== part.type)) flush();
      group.push(part);
    }
    flush();
  }
  return items;
}
