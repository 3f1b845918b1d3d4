#!/usr/bin/env node
// A compactcheck harness in plain JavaScript (Node.js 18+, no dependencies).
//
// It speaks compactcheck's JSON-lines protocol, version 1, on stdin and stdout, and wraps two
// messages-view compactors: OpenAI chat messages in, fewer OpenAI chat messages out; and an
// Anthropic Messages request ({system, messages}) in, a shorter one out.
//
//   compactcheck run "cmd:node examples/node-harness/harness.js"
//   compactcheck run "cmd:node examples/node-harness/harness.js" --format anthropic
//
// To check your own compactor, replace compactMessages() below (it may be async) and keep the
// protocol plumbing at the bottom as it is. Diagnostics go to stderr (console.error): stdout
// carries protocol lines only.
"use strict";

const readline = require("node:readline");

const IMPLEMENTATION = {
  name: "example-node-compactor",
  version: "1.0.0",
  language: "javascript",
  views: ["messages"],
  // The wire formats it takes; without this field compactcheck sends openai-chat only.
  formats: ["openai-chat", "anthropic"],
};

// How many messages a compacted list may hold (the example's only knob).
const MAX_MESSAGES = Number.parseInt(process.env.COMPACT_MAX_MESSAGES || "12", 10);

// ============================================================================================
// REPLACE THIS FUNCTION with a call into your own compactor.
//
// It receives an array of OpenAI chat messages ({role, content, tool_calls, tool_call_id}) and
// returns a new array of them. It must not modify its input. Throwing is fine: the harness
// answers "errored" with the message and stack, and compactcheck reports it.
//
// For example, with a TypeScript agent built with tsc:
//   const { compactHistory } = require("../dist/compaction.js");
//   async function compactMessages(messages) { return compactHistory(messages, { maxMessages: 12 }); }
// ============================================================================================
async function compactMessages(messages) {
  return exampleCompactor(messages, MAX_MESSAGES);
}

// --- The example compactor ------------------------------------------------------------------
// Keep the head (every system message and the first user message), replace one middle span
// with a single summary message, keep the longest recent tail that fits. A cut never falls
// between an assistant's tool call and the results of that call.

function exampleCompactor(messages, maxMessages) {
  const n = messages.length;
  if (n <= maxMessages) return messages.slice();
  const safe = safeCuts(messages);
  let head = 0;
  let seenUser = false;
  messages.forEach((message, index) => {
    // Every system message stays in the head, so instructions are never summarised away.
    if (message.role === "system") head = index + 1;
    if (message.role === "user" && !seenUser) {
      seenUser = true;
      head = Math.max(head, index + 1);
    }
  });
  while (head <= n && !safe[head]) head += 1;
  // Tail starts: safe cuts after the head; the tail always holds the last message.
  const starts = [];
  for (let start = head + 1; start <= n - 1; start += 1) if (safe[start]) starts.push(start);
  if (starts.length === 0) return messages.slice();
  const fits = starts.find((start) => head + 1 + (n - start) <= maxMessages);
  const tail = fits === undefined ? starts[starts.length - 1] : fits;
  return [...messages.slice(0, head), summarise(messages.slice(head, tail)), ...messages.slice(tail)];
}

function callIds(message) {
  if (message.role !== "assistant" || !Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.map((call) => call.id);
}

// safe[i] says whether cutting just before message i keeps every tool call with all of its
// results: a call at index c answered last at index r forbids the cuts c+1..r.
function safeCuts(messages) {
  const calledAt = new Map();
  const lastResultAt = new Map();
  messages.forEach((message, index) => {
    for (const id of callIds(message)) if (!calledAt.has(id)) calledAt.set(id, index);
    if (message.role === "tool") lastResultAt.set(message.tool_call_id, index);
  });
  const delta = new Array(messages.length + 2).fill(0);
  for (const [id, calledIndex] of calledAt) {
    const answeredIndex = lastResultAt.get(id);
    if (answeredIndex !== undefined && answeredIndex > calledIndex) {
      delta[calledIndex + 1] += 1;
      delta[answeredIndex + 1] -= 1;
    }
  }
  let open = 0;
  return Array.from({ length: messages.length + 1 }, (_, index) => (open += delta[index]) === 0);
}

function textOf(content) {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => part.text || "").join("\n");
}

function firstLine(text) {
  return text.split("\n", 1)[0];
}

// One message standing for a span. A user's words are kept whole (they carry the goal and
// constraint updates); every tool call is listed with its arguments and id, so file paths and
// step ids survive; any other message is represented by its first line.
function summarise(span) {
  const lines = [`Summary of ${span.length} earlier messages, replaced by this one:`];
  for (const message of span) {
    const text = textOf(message.content);
    if (message.role === "user") {
      lines.push(`- user said: ${text}`);
    } else if (message.role === "tool") {
      lines.push(`- tool result ${message.tool_call_id}: ${firstLine(text)}`);
    } else {
      if (text) lines.push(`- ${message.role}: ${firstLine(text)}`);
      for (const call of message.tool_calls || []) {
        lines.push(`- assistant called ${call.function.name} ${call.function.arguments} (${call.id})`);
      }
    }
  }
  return { role: "user", content: lines.join("\n") };
}

// --- The Anthropic Messages compactor -------------------------------------------------------
// The same policy on an Anthropic request. The API joins consecutive messages of one role and
// pairs each assistant tool_use with a tool_result in the very next message, so the history is
// cut into units that stay whole: an assistant message that calls tools, with the message that
// answers it; every other message alone. Kept units are carried exactly as they came: thinking
// blocks and their signatures, redacted thinking, server tools and cache markers included.

async function compactAnthropic(request) {
  return exampleAnthropicCompactor(request, MAX_MESSAGES);
}

function callsTools(message) {
  return (
    message.role === "assistant" &&
    Array.isArray(message.content) &&
    message.content.some((block) => block.type === "tool_use")
  );
}

function anthropicUnits(messages) {
  const units = [];
  for (let index = 0; index < messages.length; index += 1) {
    if (callsTools(messages[index]) && index + 1 < messages.length) {
      units.push([messages[index], messages[index + 1]]);
      index += 1;
    } else {
      units.push([messages[index]]);
    }
  }
  return units;
}

function anthropicLine(message) {
  const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
  const lines = [];
  for (const block of blocks) {
    if (block.type === "text" && message.role === "user") lines.push(`- user said: ${block.text}`);
    else if (block.type === "text") lines.push(`- assistant: ${firstLine(block.text)}`);
    else if (block.type === "tool_use") {
      lines.push(`- assistant called ${block.name} ${JSON.stringify(block.input)} (${block.id})`);
    } else if (block.type === "tool_result") {
      lines.push(`- tool result ${block.tool_use_id}: ${firstLine(textOf(block.content))}`);
    }
    // Thinking, redacted thinking, images and server tools are opaque: never summarised.
  }
  return lines;
}

function exampleAnthropicCompactor(request, maxMessages) {
  const messages = request.messages;
  if (messages.length <= maxMessages) return { ...request, messages: messages.slice() };
  const units = anthropicUnits(messages);
  // The head: the first user message (the task); the system prompt is not a message.
  const head = units.length > 0 && units[0][0].role === "user" ? 1 : 0;
  let kept = 0;
  let tailStart = units.length;
  for (let index = units.length - 1; index > head; index -= 1) {
    if (head + 1 + kept + units[index].length > maxMessages) break;
    kept += units[index].length;
    tailStart = index;
  }
  if (tailStart === units.length) tailStart = units.length - 1; // the last unit stays
  if (tailStart <= head) return { ...request, messages: messages.slice() };
  const dropped = units.slice(head, tailStart).flat();
  const lines = [`Summary of ${dropped.length} earlier messages, replaced by this one:`];
  for (const message of dropped) lines.push(...anthropicLine(message));
  const summary = { role: "user", content: [{ type: "text", text: lines.join("\n") }] };
  return {
    ...request,
    messages: [...units.slice(0, head).flat(), summary, ...units.slice(tailStart).flat()],
  };
}

// --- Protocol plumbing (version 1): keep as it is ----------------------------------------------

function send(answer) {
  // One JSON object per line. Writes to a pipe are synchronous on Linux and macOS, so every
  // answer reaches compactcheck before the next request is read.
  process.stdout.write(JSON.stringify(answer) + "\n");
}

async function answer(request) {
  if (request.cmd === "start") {
    if (request.version !== 1) console.error(`harness speaks protocol 1, asked for ${request.version}`);
    return { version: 1, implementation: IMPLEMENTATION };
  }
  if (request.cmd !== "compact") {
    console.error(`ignoring unknown command ${JSON.stringify(request.cmd)}`);
    return null;
  }
  const seq = request.seq; // opaque: echo it exactly as received
  if (request.view !== "messages") {
    return { seq, skipped: { reason: `this harness compacts the messages view, not ${request.view}` } };
  }
  try {
    const input = request.input;
    if (input.format === "anthropic") {
      return { seq, result: { request: await compactAnthropic(input.request) } };
    }
    if (input.format !== undefined) {
      return { seq, skipped: { reason: `this harness does not take the ${input.format} format` } };
    }
    const messages = await compactMessages(input.messages);
    return { seq, result: { messages } };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const traceback = error instanceof Error ? error.stack : undefined;
    return { seq, errored: { message, traceback } };
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
// Requests are answered strictly in order, even when the compactor is async.
let queue = Promise.resolve();
lines.on("line", (line) => {
  if (!line.trim()) return;
  queue = queue.then(async () => {
    let request;
    try {
      request = JSON.parse(line);
    } catch (error) {
      console.error(`not a JSON request: ${line.slice(0, 80)}`);
      return;
    }
    if (request.cmd === "stop") {
      lines.close();
      return;
    }
    const reply = await answer(request);
    if (reply !== null) send(reply);
  });
});
