// Completes server.json for one release, for `mcp-publisher publish`: the repository it is
// published from in place of the OWNER/discord-manager the file in the repository names, and
// each bundle's SHA-256 (`fileSha256`, which the MCP Registry requires of a bundle and a
// client checks before running it). The release workflow runs it once every bundle is built,
// and so does `tests/distribution.rs`.
//
// Usage: node packaging/mcp-registry/release.mjs OWNER/REPOSITORY BUNDLES OUT
//   OWNER/REPOSITORY  the GitHub repository of the release (`github.repository`)
//   BUNDLES           the folder holding every bundle server.json names
//   OUT               where to write the completed server.json

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [repository, bundles, out] = process.argv.slice(2);
if (!out || !/^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/.test(repository)) {
  console.error("usage: node packaging/mcp-registry/release.mjs OWNER/REPOSITORY BUNDLES OUT");
  process.exit(2);
}
const owner = repository.split("/")[0];
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const template = readFileSync(join(root, "server.json"), "utf8")
  .replaceAll("github.com/OWNER/discord-manager", `github.com/${repository}`)
  .replaceAll("io.github.OWNER/", `io.github.${owner}/`);
const server = JSON.parse(template);
for (const bundle of server.packages) {
  const file = join(bundles, basename(new URL(bundle.identifier).pathname));
  bundle.fileSha256 = createHash("sha256").update(readFileSync(file)).digest("hex");
}
writeFileSync(out, `${JSON.stringify(server, null, 2)}\n`);
