/**
 * "Verify this event", in the browser: GetEvent with the fair records, and for every decided
 * game with its secret revealed, checks made here with the browser's own SHA-256
 * (crypto.subtle) rather than taken from the server's word (docs/competitions.md, "Fairness"):
 * the commitment published when the round was announced is SHA-256("kafana-commit-v2:" +
 * secret); the fair record names that commitment and that table; and the deal seed in the
 * record is the first 8 bytes of SHA-256("kafana-deal-v2:" + secret). Replaying the moves
 * against the rules is `kafana verify`'s job (the records can be downloaded here).
 */
import { GameStatus, type GameInfo } from "@kafana/client";
import { client, explain } from "./api.js";
import { fill, h, listTable } from "./dom.js";

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** One check: what was compared, and whether it held. */
export interface Check {
  what: string;
  ok: boolean;
}

/** The checks of one game's fair record (empty when its secret is not revealed yet). */
export async function checkGame(game: GameInfo): Promise<Check[]> {
  if (!game.secret || !game.record) return [];
  const lines = game.record.split("\n");
  const line = (prefix: string) => lines.find((l) => l.startsWith(prefix))?.slice(prefix.length).trim();
  const commitment = hex(await sha256(`kafana-commit-v2:${game.secret}`));
  const deal = await sha256(`kafana-deal-v2:${game.secret}`);
  let seed = 0n;
  for (const byte of deal.slice(0, 8)) seed = (seed << 8n) | BigInt(byte);
  return [
    { what: "the published commitment is SHA-256 of the revealed secret", ok: commitment === game.commitment },
    { what: "the record names the published commitment", ok: line("commitment ") === game.commitment },
    { what: "the record reveals the same secret", ok: line("revealed ") === game.secret },
    { what: "the record is of this game's table", ok: line("meta table ") === game.tableId },
    { what: "the deal seed follows from the secret", ok: line("seed ") === seed.toString() },
  ];
}

/** The verify page of `eventId` into `root`. */
export async function verifyPage(root: HTMLElement, eventId: string): Promise<() => void> {
  const back = h("a", { href: `#/e/${eventId}`, class: "back" }, "← The event");
  try {
    const event = await client.competitions.getEvent({ eventId, records: true });
    const games = event.rounds.flatMap((r) => r.games);
    const rows: HTMLElement[] = [];
    let verified = 0;
    let failed = 0;
    for (const game of games) {
      const checks = await checkGame(game);
      const bad = checks.filter((c) => !c.ok);
      if (checks.length && !bad.length) verified++;
      if (bad.length) failed++;
      rows.push(h("tr", { class: bad.length ? "bad" : checks.length ? "good" : "" },
        h("td", {}, game.gameId),
        h("td", {}, game.seats.join(" – ")),
        h("td", {}, checks.length
          ? h("ul", { class: "checks" }, checks.map((c) => h("li", { class: c.ok ? "ok" : "failed" }, c.ok ? "✓ " : "✗ ", c.what)))
          : game.status === GameStatus.DONE ? "secret not revealed yet" : "not decided yet")));
    }
    const blob = new Blob([event.recordsJsonl], { type: "application/x-ndjson" });
    fill(root, back,
      h("h1", {}, `Verify ${event.name}`),
      h("p", { id: "verify-summary", class: failed ? "error" : "notice", role: "status" },
        failed ? `${failed} of ${games.length} games FAILED a check.` : `${verified} of ${games.length} games verified in this browser.`),
      listTable({ id: "verify" }, ["Game", "Seats", "Checks"], rows),
      event.recordsJsonl
        ? h("p", {}, h("a", { href: URL.createObjectURL(blob), download: `${event.name}-records.jsonl`, class: "button" }, "Download the records"),
            " and replay every move with ", h("code", {}, "kafana verify"), ".")
        : null);
  } catch (error) {
    fill(root, back, h("p", { class: "error", role: "alert" }, explain(error)));
  }
  return () => undefined;
}
