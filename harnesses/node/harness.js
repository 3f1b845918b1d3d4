#!/usr/bin/env node
// compactcheck's built-in JavaScript targets: `node harness.js TARGET` serves one of them over
// protocol v1 (compactcheck starts it for targets named node:TARGET).
import { createRequire } from "node:module";
import { serve } from "./protocol.js";
import { TARGETS } from "./targets.js";

const name = process.argv[2];
const target = TARGETS[name];
if (!target) {
  console.error(`expected a target name, one of ${Object.keys(TARGETS).join(", ")}; found ${JSON.stringify(name)}`);
  process.exit(2);
}
const require = createRequire(import.meta.url);
const version = require(`${target.package}/package.json`).version;
serve({ name, version: `${target.package}@${version}`, language: "javascript", formats: target.formats, waivers: target.waivers || {} }, target.compact);
