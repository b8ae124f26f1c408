// Writes BUILD beside the built assets: the SHA-256 of every source the build reads (this
// package's sources and lock file, and clients/ts/src). tests/web/test_assets.py computes
// the same digest, so a commit whose assets are older than their sources fails the tests.
// Whole-line comments of .ts files are left out: the bundle has none, so a change to the
// proto's comments (regenerated into clients/ts/src/gen) needs no rebuild.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const web = fileURLToPath(new URL("..", import.meta.url));
const repo = join(web, "..", "..");
const out = join(repo, "server", "kafana", "service", "web", "static");

function files(path) {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path).sort().flatMap((name) => files(join(path, name)));
}

/** A .ts file without its whole-line comments (lines starting with //, /* or *). */
function code(text) {
  return text.split("\n").filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line)).join("\n");
}

const sources = [
  ...["index.html", "package.json", "package-lock.json", "tsconfig.json", "vite.config.ts"].map((n) => join(web, n)),
  ...files(join(web, "src")),
  ...files(join(repo, "clients", "ts", "src")),
];
const digest = createHash("sha256");
for (const path of sources.map((p) => relative(repo, p).split("\\").join("/")).sort()) {
  digest.update(path + "\0");
  digest.update(path.endsWith(".ts") ? code(readFileSync(join(repo, path), "utf8")) : readFileSync(join(repo, path)));
  digest.update("\0");
}
writeFileSync(join(out, "BUILD"), digest.digest("hex") + "\n");
console.log(`stamped ${relative(repo, out)}/BUILD from ${sources.length} sources`);
