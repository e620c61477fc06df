// Drives an MCP server over stdio with the official TypeScript SDK, as an
// agent would, and fails on the first broken promise. The SDK's
// `callTool` checks every structuredContent against the tool's
// outputSchema; on top of that this checks what an agent acts on:
//
// - every page, first included, says where it starts (`start`);
// - following next_cursor page after page yields each item once, with
//   `start` counting the items before each page;
// - a misspelled argument is an error that names it;
// - `strict` on an incomplete answer is an error that still holds what
//   was found;
// - the first text block is the one-line disclosure, the second exactly
//   the JSON of structuredContent.
//
// Usage: node check.mjs SEARCH_TOOL QUERY -- COMMAND [ARGS...]
// Prints one line per check, and "ok" at the end; exits 1 on a failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const separator = process.argv.indexOf("--");
const [tool, query] = process.argv.slice(2, separator);
const [command, ...args] = process.argv.slice(separator + 1);
if (separator < 0 || !tool || !query || !command) {
  console.error("usage: node check.mjs SEARCH_TOOL QUERY -- COMMAND [ARGS...]");
  process.exit(2);
}

function fail(message) {
  console.error(`FAILED: ${message}`);
  process.exit(1);
}

function texts(result) {
  return result.content.filter((c) => c.type === "text").map((c) => c.text);
}

function page(result, what) {
  if (result.isError) fail(`${what}: a tool error: ${texts(result).join(" | ")}`);
  const s = result.structuredContent;
  if (!s) fail(`${what}: no structuredContent`);
  if (typeof s.start !== "number") fail(`${what}: no start on the page: ${JSON.stringify(s).slice(0, 200)}`);
  const [line, json] = texts(result);
  if (line.includes("\n")) fail(`${what}: the disclosure is not one line`);
  if (JSON.stringify(JSON.parse(json)) !== JSON.stringify(s)) fail(`${what}: the JSON block differs from structuredContent`);
  return s;
}

const client = new Client({ name: "candor-ts-check", version: "0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
const { tools } = await client.listTools();
const described = tools.find((t) => t.name === tool);
if (!described) fail(`no tool ${tool}`);
if (!described.outputSchema) fail(`${tool} has no outputSchema`);
console.log(`tools: ${tools.map((t) => t.name).join(", ")}`);

// A walk, page by page: the SDK validates each page against the schema.
let cursor;
let seen = 0;
let pages = 0;
for (;;) {
  const args = { query, limit: 2 };
  if (cursor) args.cursor = cursor;
  const s = page(await client.callTool({ name: tool, arguments: args }), `page ${pages + 1}`);
  if (s.start !== seen) fail(`page ${pages + 1} starts at ${s.start}, after ${seen} items`);
  seen += s.count;
  pages += 1;
  if (!s.next_cursor) {
    if (!s.complete && !s.skipped) fail(`the last page is incomplete without a cursor`);
    if (s.total.relation !== "eq" || s.total.value !== seen) fail(`the last page's total ${JSON.stringify(s.total)} is not the ${seen} items seen`);
    break;
  }
  cursor = s.next_cursor;
  if (pages > 1000) fail("more than 1000 pages");
}
console.log(`walk: ${seen} items in ${pages} pages, the first saying start 0`);
if (seen < 3) fail(`the query should match at least 3 items, got ${seen}`);

// Every other tool answers in the schema too.
for (const other of tools.filter((t) => t.name !== tool)) {
  const args = other.name === "excerpt" ? null : { query, limit: 1 };
  if (!args) continue;
  page(await client.callTool({ name: other.name, arguments: args }), other.name);
  console.log(`${other.name}: valid`);
}

// A misspelled argument: an error that names it, never the default answer.
let refused;
try {
  refused = await client.callTool({ name: tool, arguments: { query, limt: 1 } });
} catch (e) {
  refused = { isError: true, content: [{ type: "text", text: String(e.message) }] };
}
if (!refused.isError) fail(`a misspelled argument was accepted: ${texts(refused)[0]}`);
if (!texts(refused).join(" ").includes("limt")) fail(`the error does not name the argument: ${texts(refused).join(" ")}`);
console.log(`misspelled: refused (${texts(refused)[0].slice(0, 80)})`);

// strict on an incomplete answer: an error that still holds what was found.
const strict = await client.callTool({ name: tool, arguments: { query, limit: 1, strict: true } });
if (!strict.isError) fail("strict on an incomplete answer was not an error");
const held = texts(strict);
if (held.length < 3) fail(`the strict error does not hold what was found: ${held.join(" | ")}`);
const found = JSON.parse(held[2]);
if (found.count !== 1 || found.start !== 0) fail(`the strict error's page: ${held[2].slice(0, 200)}`);
console.log("strict: an error holding what was found");

await client.close();
console.log("ok");
