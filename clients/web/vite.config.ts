/**
 * Builds the web app into the Python package (server/kafana/service/web/static), where
 * `kafana serve --http` serves it: `pip install` and `kafana serve` need no npm. The client
 * layer is clients/ts's sources (@kafana/client), bundled with this package's own copy of the
 * protobuf-es and Connect runtimes (one copy: `dedupe`).
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  base: "./",
  resolve: {
    alias: [
      { find: /^@kafana\/client$/, replacement: here("../ts/src/index.ts") },
      { find: /^@kafana\/client\/web$/, replacement: here("../ts/src/web.ts") },
    ],
    dedupe: ["@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-web"],
  },
  server: {
    // `npm run dev`: the API calls go on to a running `kafana serve --http` (same origin).
    proxy: { "^/kafana\\.v1\\.": process.env.KAFANA_HTTP ?? "http://127.0.0.1:8080" },
  },
  build: {
    outDir: here("../../server/kafana/service/web/static"),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false,
  },
});
