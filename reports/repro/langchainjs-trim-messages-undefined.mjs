// LangChain.js trimMessages (@langchain/core 1.4.0) answers [undefined] when includeSystem and
// startOn leave nothing but the system message to drop: the caller gets an array holding
// undefined instead of a message list (Python's trim_messages answers [] in the same case).
//
//   npm ci --prefix harnesses/node && node reports/repro/langchainjs-trim-messages-undefined.mjs
import { createRequire } from "node:module";

const require = createRequire(new URL("../../harnesses/node/package.json", import.meta.url));
const { trimMessages, SystemMessage, HumanMessage, AIMessage } = await import(
  require.resolve("@langchain/core/messages")
);

const history = [
  new SystemMessage("You are a careful coding agent."),
  new HumanMessage("Fix the login bug."),
  new AIMessage("Starting step s1."),
  new AIMessage("Step s1 is complete."),
];
const trimmed = await trimMessages(history, {
  maxTokens: 2,
  strategy: "last",
  includeSystem: true,
  startOn: "human",
  tokenCounter: (messages) => messages.length,
});
console.log(trimmed.length, trimmed.map((message) => (message ? message.getType() : message)));
if (trimmed.some((message) => message === undefined)) {
  console.log("defect: the trimmed list holds undefined");
  process.exit(1);
}
