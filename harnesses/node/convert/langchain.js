// OpenAI chat messages <-> LangChain.js messages. What LangChain has no field for is kept in
// additional_kwargs.compactcheck; the way back restores the messages as they came.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { KEY, parseArguments, without } from "./stash.js";

export function toLangChain(messages) {
  return messages.map((message) => {
    const stash = { message: without(message, ["content", "tool_calls"]), content: message.content, toolCalls: message.tool_calls };
    const content = typeof message.content === "string" ? message.content : (message.content || []).map((p) => ({ ...p }));
    const fields = { content, additional_kwargs: { [KEY]: stash } };
    if (message.role === "system") return new SystemMessage(fields);
    if (message.role === "user") return new HumanMessage(fields);
    if (message.role === "tool") return new ToolMessage({ ...fields, tool_call_id: message.tool_call_id });
    const toolCalls = (message.tool_calls || []).map((call) => {
      const { input } = parseArguments(call.function.arguments);
      return { id: call.id, name: call.function.name, args: typeof input === "string" ? { __text: input } : input, type: "tool_call" };
    });
    return new AIMessage({ ...fields, tool_calls: toolCalls });
  });
}

export function fromLangChain(messages) {
  return messages.map((message, index) => {
    if (!message || typeof message !== "object") {
      throw new TypeError(`the library returned ${message} at index ${index} of its message list, not a message`);
    }
    const stash = message.additional_kwargs[KEY];
    const out = { ...stash.message };
    if (stash.content !== undefined) out.content = stash.content;
    if (stash.toolCalls !== undefined) out.tool_calls = stash.toolCalls;
    // What the library may have changed is read from the message itself.
    const ids = (message.tool_calls || []).map((call) => call.id);
    if (out.tool_calls) out.tool_calls = out.tool_calls.filter((call) => ids.includes(call.id));
    if (message.content !== undefined && JSON.stringify(message.content) !== JSON.stringify(stash.content ?? "")) {
      // LangChain reads a missing or null content as empty: that is not an edit.
      const empty = message.content === "" || (Array.isArray(message.content) && message.content.length === 0);
      if (!(empty && (stash.content === null || stash.content === undefined))) out.content = message.content;
    }
    return Object.fromEntries(Object.entries({ role: out.role, ...out }));
  });
}
