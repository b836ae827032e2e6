// The official TypeScript SDK's client (@modelcontextprotocol/sdk) driving discord-manager's
// MCP server over stdio, for the E2E spec
// `the_official_sdk_clients_get_every_tools_answer_while_the_server_pushes_channel_events`.
//
// Usage: node typescript_client.mjs PLAN.json ANSWERS.json
//
// PLAN.json: {"server": {"command", "args", "env", "cwd"}, "calls": [{"tool", "arguments"}],
//             "pushesBeforeCalls": N, "pauseAfterCalls": K}
// It waits for N channel events before the first call; after K calls it says `paused` on its
// output and waits for one more event before going on.
// ANSWERS.json, written at the end: {"sdk", "tools": [{"name", "description"}],
//             "results": [{"tool", "isError", "content", "structuredContent"}],
//             "pushed": [{"params", "callsAnswered"}]}
//
// The SDK knows no `notifications/claude/channel`; its `fallbackNotificationHandler` (what a
// client sees of a notification no handler claims) is where this script counts them, so the
// spec can tell the pushes really arrived while the tools answered.

import { readFile, writeFile } from "node:fs/promises";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const CHANNEL_EVENT = "notifications/claude/channel";
/** A safety net, not a measurement: a silent server fails the run instead of hanging it. */
const PATIENCE_MS = 60_000;

const [planPath, answersPath] = process.argv.slice(2);
const plan = JSON.parse(await readFile(planPath, "utf8"));
// The package's own package.json (its exports map sends `…/package.json` elsewhere).
const sdk = JSON.parse(
  await readFile(new URL("node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url), "utf8"),
).version;

const client = new Client({ name: "e2e-typescript-sdk", version: sdk });
const pushed = [];
let callsAnswered = 0;
let pushArrived = () => {};
client.fallbackNotificationHandler = async (notification) => {
  if (notification.method === CHANNEL_EVENT) {
    pushed.push({ params: notification.params ?? null, callsAnswered });
    pushArrived();
  }
};

const transport = new StdioClientTransport({ ...plan.server, stderr: "inherit" });
await client.connect(transport);

const tools = [];
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : undefined);
  tools.push(...page.tools.map(({ name, description }) => ({ name, description })));
  cursor = page.nextCursor;
} while (cursor);

/** Waits until `count` channel events have arrived in all. */
async function pushedAtLeast(count) {
  const deadline = Date.now() + PATIENCE_MS;
  while (pushed.length < count) {
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new Error(`waited ${PATIENCE_MS} ms for ${count} channel events; got ${pushed.length}`);
    }
    await new Promise((resolve) => {
      pushArrived = resolve;
      setTimeout(resolve, Math.min(left, 100));
    });
  }
}

await pushedAtLeast(plan.pushesBeforeCalls);
const results = [];
for (const { tool, arguments: args } of plan.calls) {
  if (results.length === plan.pauseAfterCalls) {
    const before = pushed.length;
    process.stdout.write("paused\n");
    await pushedAtLeast(before + 1);
  }
  const result = await client.callTool({ name: tool, arguments: args }, undefined, {
    timeout: PATIENCE_MS,
  });
  results.push({
    tool,
    isError: result.isError === true,
    content: result.content,
    structuredContent: result.structuredContent ?? null,
  });
  callsAnswered += 1;
}

await client.close();
await writeFile(answersPath, JSON.stringify({ sdk, tools, results, pushed }));
