// Stages one release platform's MCP Bundle for `mcpb pack`: the manifest beside this script,
// with its platforms narrowed to the target's, and the target's binary under `server/`.
// The release workflow runs it beside each binary, and so does `tests/distribution.rs`.
//
// Usage: node packaging/mcpb/stage.mjs TARGET BINARY FOLDER
//   TARGET  a Rust target triple (x86_64-unknown-linux-musl, aarch64-apple-darwin, …)
//   BINARY  the discord-manager binary built for it
//   FOLDER  where to stage (created; must not exist yet)

import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [target, binary, folder] = process.argv.slice(2);
if (!folder) {
  console.error("usage: node packaging/mcpb/stage.mjs TARGET BINARY FOLDER");
  process.exit(2);
}

/** The MCPB platform (Node's `process.platform`) a Rust target runs on. */
function platformOf(target) {
  if (target.endsWith("-apple-darwin")) return "darwin";
  if (target.includes("-windows-")) return "win32";
  if (target.includes("-linux-")) return "linux";
  throw new Error(`${target} is not a platform a bundle is made for (macOS, Windows, Linux)`);
}

const platform = platformOf(target);
const executable = platform === "win32" ? "discord-manager.exe" : "discord-manager";
const manifest = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), "manifest.json"), "utf8"),
);
manifest.compatibility.platforms = [platform];
manifest.server.entry_point = `server/${executable}`;
manifest.server.mcp_config.command = `\${__dirname}/server/${executable}`;

mkdirSync(folder);
mkdirSync(join(folder, "server"));
copyFileSync(binary, join(folder, "server", executable));
chmodSync(join(folder, "server", executable), 0o755);
writeFileSync(join(folder, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
