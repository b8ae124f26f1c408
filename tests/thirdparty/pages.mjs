// ListTables a page at a time (AIP-158) through more than 500 tables: every table once, newest
// first, the default page size and the largest one as GetServerInfo says, a larger page_size
// coerced down. Several scripts (one per protocol) share the work: each creates COUNT tables
// named "pages RUN <protocol>" in parallel (the server needs --tables-per-hour 0 --open-tables
// 0), prints "CREATED", waits for "LIST" on stdin (the driver's sign that every script has
// created its share), then pages through all and must find its own tables and at least TOTAL
// of the run's. Usage: node pages.mjs PROTOCOL URL COUNT TOTAL RUN
import { Game } from "@kafana/client/gen/kafana/v1/rules_pb";
import { TableStatus } from "@kafana/client/gen/kafana/v1/state_pb";
import { createInterface } from "node:readline";
import { check, commandLine, done, kafanaClient, run } from "./lib.mjs";

const PARALLEL = 32;

run(async () => {
  const started = Date.now();
  const { protocol, url, rest } = commandLine();
  const [count, total] = rest.slice(0, 2).map(Number);
  const runLabel = `pages ${rest[2]} `;
  check(count > 0 && total >= count && rest[2], `usage: pages.mjs PROTOCOL URL COUNT TOTAL RUN, got ${rest}`);
  const kafana = kafanaClient(protocol, url);
  const limits = (await kafana.getServerInfo({})).limits;
  check(limits.maxPageSize === 500 && limits.defaultPageSize === 50, `limits ${JSON.stringify(limits)}`);

  const label = runLabel + protocol;
  const created = new Set();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const answer = await kafana.createTable({ config: { name: label, rules: { game: Game.TAC, players: 2 } } });
      created.add(answer.tableId);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  check(created.size === count, `created ${created.size} tables, wanted ${count}`);
  const createMillis = Date.now() - started;
  console.log(`CREATED ${created.size}`);
  const go = await createInterface({ input: process.stdin })[Symbol.asyncIterator]().next();
  check(go.value === "LIST", `the driver said ${JSON.stringify(go.value)}, not LIST`);
  const listed = Date.now();

  const filter = { game: Game.TAC, status: TableStatus.OPEN };
  const firstDefault = await kafana.listTables(filter);
  check(firstDefault.tables.length === limits.defaultPageSize, `default page: ${firstDefault.tables.length} tables`);
  const seen = new Map();
  const pages = [];
  let pageToken = "";
  do {
    const page = await kafana.listTables({ ...filter, pageSize: 10_000, pageToken });
    check(page.tables.length <= limits.maxPageSize, `a page of ${page.tables.length} (> max_page_size)`);
    pages.push(page.tables.length);
    for (const table of page.tables) {
      check(!seen.has(table.tableId), `table ${table.tableId} listed twice`);
      check(table.rules?.game === Game.TAC && table.status === TableStatus.OPEN, `filter not applied: ${table.tableId}`);
      seen.set(table.tableId, table);
    }
    pageToken = page.nextPageToken;
  } while (pageToken !== "");
  check(pages[0] === limits.maxPageSize, `page_size 10000 not coerced to ${limits.maxPageSize}: ${pages[0]}`);
  const missing = [...created].filter((id) => !seen.has(id));
  check(missing.length === 0, `${missing.length} created tables never listed, e.g. ${missing[0]}`);
  const runs = [...seen.values()].filter((t) => t.name.startsWith(runLabel)).length;
  check(runs >= total, `${runs} tables of this run listed, wanted ${total} at least`);
  const ours = [...seen.values()].filter((t) => created.has(t.tableId));
  const times = ours.map((t) => t.createdMs);
  check(times.every((t, i) => i === 0 || times[i - 1] >= t), "tables are not newest first");
  done({ protocol, created: count, listed: seen.size, runs, pages, createMillis, listMillis: Date.now() - listed });
});
