// npm's `prepare` for @kafana/client: it runs on `npm ci` / `npm install` in this folder, on
// `npm pack`, and when another app installs this folder (`npm install /path/to/clients/ts`,
// linked, or copied with --install-links). It builds dist/ with tsc, unless dist/ was built from
// these very sources (their digest is kept in node_modules/.kafana-build, which is never packed;
// a build starts from an empty dist/).
// When this folder's devDependencies are missing (a clean clone installed from another app),
// it installs them first: `npm ci --ignore-scripts --include=dev` here.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const stamp = join(root, "node_modules", ".kafana-build");

/** Every file under `dir`, sorted. */
function files(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : [path];
    });
}

/** The digest of what dist/ is built from. */
function sourcesDigest() {
  const hash = createHash("sha256");
  const inputs = ["package.json", "package-lock.json", "tsconfig.json"].map((name) => join(root, name));
  for (const path of [...inputs, ...files(join(root, "src"))]) {
    hash.update(relative(root, path)).update("\0").update(readFileSync(path)).update("\0");
  }
  return hash.digest("hex");
}

/** Run `command args` here; exit with its status when it fails. */
function run(command, args, env = process.env) {
  const done = spawnSync(command, args, { cwd: root, stdio: "inherit", env });
  if (done.status !== 0) {
    console.error(`@kafana/client prepare: ${[command, ...args].join(" ")} failed (${done.status ?? done.signal})`);
    process.exit(done.status || 1);
  }
}

/**
 * The environment for a nested npm: an outer npm's `npm_config_*` (--prefix, --global,
 * --omit=dev...) would aim it at the installing app, so only the registry, cache, proxy and TLS
 * settings are kept.
 */
function npmEnvironment() {
  const keep = /^npm_config_(registry|cache|userconfig|globalconfig|proxy|https_proxy|noproxy|strict_ssl|cafile|ca|cert|key|offline|prefer_offline|prefer_online|fetch_.*|@.*:registry|\/\/.*)$/i;
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_config_") || keep.test(name)),
  );
}

if (!existsSync(tsc)) {
  console.error("@kafana/client prepare: installing its build tools (npm ci --ignore-scripts --include=dev)");
  const cli = process.env.npm_execpath;
  const [command, prefix] = cli?.endsWith(".js") ? [process.execPath, [cli]] : ["npm", []];
  run(command, [...prefix, "ci", "--ignore-scripts", "--include=dev", "--no-audit", "--no-fund"], npmEnvironment());
}
const digest = sourcesDigest();
const built = existsSync(join(root, "dist", "index.js")) && existsSync(stamp) && readFileSync(stamp, "utf8") === digest;
if (!built) {
  rmSync(join(root, "dist"), { recursive: true, force: true }); // nothing stale is packed
  run(process.execPath, [tsc, "-p", "tsconfig.json"]);
  writeFileSync(stamp, digest);
}
