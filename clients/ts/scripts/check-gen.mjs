// Fails when src/gen is not what `buf generate` makes from proto/ now (run `npm run generate`).
// It generates into a temporary folder with the same template and compares file by file. A
// difference only in comments (a proto comment reworded) is reported but does not fail, unless
// --strict is given: the code, descriptors included, is what must match.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const strict = process.argv.includes("--strict");

/** The text without its comment lines (generated code starts every comment on its own line). */
function code(text) {
  return text
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join("\n");
}
const committed = join(root, "src", "gen");
const scratch = mkdtempSync(join(tmpdir(), "kafana-gen-"));

function files(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else out.push(path);
  }
  return out;
}

try {
  const buf = join(root, "node_modules", ".bin", "buf");
  const bin = join(root, "node_modules", ".bin");
  const env = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ""}` };
  execFileSync(buf, ["generate", "--output", scratch], { cwd: root, env, stdio: "inherit" });
  const fresh = join(scratch, "src", "gen");
  const want = new Map(files(fresh).map((f) => [relative(fresh, f), readFileSync(f, "utf8")]));
  const have = new Map(files(committed).map((f) => [relative(committed, f), readFileSync(f, "utf8")]));
  const problems = [];
  const comments = [];
  for (const [name, text] of want) {
    if (!have.has(name)) problems.push(`missing: src/gen/${name}`);
    else if (code(have.get(name)) !== code(text)) problems.push(`out of date: src/gen/${name}`);
    else if (have.get(name) !== text) (strict ? problems : comments).push(`comments out of date: src/gen/${name}`);
  }
  for (const name of have.keys()) if (!want.has(name)) problems.push(`not generated: src/gen/${name}`);
  if (problems.length > 0) {
    console.error(`src/gen does not match proto/ (run \`npm run generate\` in clients/ts):`);
    for (const problem of problems) console.error(`  ${problem}`);
    process.exit(1);
  }
  for (const comment of comments) console.log(`warning: ${comment} (npm run generate)`);
  console.log(`src/gen is current (${want.size} files${comments.length ? ", some comments stale" : ""})`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
