// compactcheck's JSON-lines protocol, version 1, for a compactor written in JavaScript.
//
//   import { serve } from "compactcheck-node-harness";
//   serve({ name: "my-compactor", formats: ["openai-chat"] }, async (input) => ({
//     messages: await myCompactor(input.messages),
//   }));
//
// `compact(input)` gets the messages view's input ({messages} for openai-chat, {format, request}
// for the other formats, and optional knobs) and returns the result ({messages} or {request}).
// Requests may arrive pipelined; answers are written in order, one line each, so that stdout
// carries protocol lines only (log with console.error).
import readline from "node:readline";

export const PROTOCOL_VERSION = 1;

function send(answer) {
  process.stdout.write(JSON.stringify(answer) + "\n");
}

/** Answer one compact request: a result, skipped or errored, never a throw. */
export async function answerCompact(implementation, compact, request) {
  const seq = request.seq; // opaque: echoed exactly as received
  if (request.view !== "messages") {
    return { seq, skipped: { reason: `${implementation.name} compacts the messages view, not ${request.view}` } };
  }
  const input = request.input || {};
  const format = input.format || "openai-chat";
  const formats = implementation.formats || ["openai-chat"];
  if (!formats.includes(format)) {
    return { seq, skipped: { reason: `${implementation.name} takes ${formats.join(", ")}, not ${format}` } };
  }
  try {
    return { seq, result: await compact(input) };
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { seq, errored: { message, traceback: error instanceof Error ? String(error.stack) : null } };
  }
}

/** Serve a compactor over stdin and stdout until stop or end of input. */
export function serve(implementation, compact, { input = process.stdin } = {}) {
  const described = { language: "javascript", version: "", views: ["messages"], ...implementation };
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  // One chain: each request is answered after the previous one, so answers keep request order
  // even when compact() is async (all pipelining needs).
  let chain = Promise.resolve();
  lines.on("line", (line) => {
    if (!line.trim()) return;
    chain = chain.then(async () => {
      let request;
      try {
        request = JSON.parse(line);
      } catch (error) {
        console.error(`ignoring a line that is not JSON: ${error.message}`);
        return;
      }
      if (request.cmd === "start") {
        if (request.version !== PROTOCOL_VERSION) console.error(`speaks protocol 1, asked for ${request.version}`);
        send({ version: PROTOCOL_VERSION, implementation: described });
      } else if (request.cmd === "compact") {
        send(await answerCompact(described, compact, request));
      } else if (request.cmd === "stop") {
        lines.close();
      } else {
        console.error(`ignoring unknown command ${JSON.stringify(request.cmd)}`);
      }
    });
  });
  lines.on("close", () => {
    chain.then(() => process.exit(0));
  });
}
