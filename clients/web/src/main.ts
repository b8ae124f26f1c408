/**
 * Kafana's web app: a hash router over the pages. #/ lobby, #/t/ID a table (play with a
 * stored seat, else watch; #/t/ID?watch always watches), #/r/ID a replay, #/e events,
 * #/rules the rules, #/me the account of this browser's API key, #/o a new event (the organiser's), #/e/ID an event (#/e/ID/verify: its records checked), #/l/LEAGUE a league's board, #/l/LEAGUE/p/PLAYER a player.
 */
import "./style.css";
import { h, fill } from "./dom.js";
import { accountPage } from "./account.js";
import { eventPage, eventsPage } from "./events.js";
import { leaguePage, leaguesPage, playerPage } from "./leagues.js";
import { lobbyPage } from "./lobby.js";
import { organisePage } from "./organiser.js";
import { replayPage } from "./replay.js";
import { rulesPage } from "./rules.js";
import { tablePage } from "./table.js";
import { verifyPage } from "./verify.js";

const root = document.getElementById("app")!;
let cleanup: (() => void) | undefined;
let generation = 0;

async function route(): Promise<void> {
  cleanup?.();
  cleanup = undefined;
  const mine = ++generation;
  const done = (stop: () => void) => {
    if (mine === generation) cleanup = stop;
    else stop(); // the page was left while it loaded
  };
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const parts = (path || "/").split("/").filter(Boolean);
  document.title = "Kafana"; // a table's page names itself (and cues the player's turn)
  const page = h("main", { class: "page" });
  fill(root, h("nav", { class: "top" }, h("a", { href: "#/" }, "Lobby"), h("a", { href: "#/e" }, "Events"), h("a", { href: "#/l" }, "Leagues"), h("a", { href: "#/rules" }, "Rules"), h("a", { href: "#/me" }, "Account")), page);
  if (parts[0] === "t" && parts[1]) {
    done(await tablePage(page, parts[1], query === "watch", () => void route()));
  } else if (parts[0] === "r" && parts[1]) {
    done(await replayPage(page, parts[1]));
  } else if (parts[0] === "e" && parts[1] && parts[2] === "verify") {
    done(await verifyPage(page, parts[1]));
  } else if (parts[0] === "e" && parts[1]) {
    done(await eventPage(page, parts[1]));
  } else if (parts[0] === "l" && parts[1] && parts[2] === "p" && parts[3]) {
    done(await playerPage(page, decodeURIComponent(parts[1]), decodeURIComponent(parts[3])));
  } else if (parts[0] === "l" && parts[1]) {
    done(await leaguePage(page, decodeURIComponent(parts[1])));
  } else if (parts[0] === "l") {
    done(await leaguesPage(page));
  } else if (parts[0] === "o") {
    done(await organisePage(page));
  } else if (parts[0] === "me") {
    done(await accountPage(page));
  } else if (parts[0] === "rules") {
    done(await rulesPage(page));
  } else if (parts[0] === "e") {
    done(await eventsPage(page));
  } else {
    done(await lobbyPage(page));
  }
  document.body.dataset.page = parts[0] ?? "lobby";
}

window.addEventListener("hashchange", () => void route());
void route();
