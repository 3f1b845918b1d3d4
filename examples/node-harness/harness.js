#!/usr/bin/env node
// A compactcheck harness in plain JavaScript (Node.js 18+, no dependencies).
//
// It speaks compactcheck's JSON-lines protocol, version 1, on stdin and stdout, and wraps one
// messages-view compactor: OpenAI chat messages in, fewer OpenAI chat messages out.
//
//   compactcheck run "cmd:node examples/node-harness/harness.js"
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
    const messages = await compactMessages(request.input.messages);
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
