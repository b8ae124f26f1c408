/**
 * Entering a hosted event from its page: EnterEvent with a name (the entry token is kept in
 * this browser), then WatchEntry: when the event makes this entrant's game, its seat token is
 * kept like any other seat's and the table opens. Reconnects until the event is over or the
 * page is left.
 */
import { EventPhase } from "@kafana/client";
import { client, explain, playerName, storeSeat } from "./api.js";
import { fill, h } from "./dom.js";

interface StoredEntry {
  name: string;
  token: string;
}

const ENTRY_KEY = "kafana.entry.";

function storedEntry(eventId: string): StoredEntry | undefined {
  try {
    const text = localStorage.getItem(ENTRY_KEY + eventId);
    return text ? (JSON.parse(text) as StoredEntry) : undefined;
  } catch {
    return undefined;
  }
}

/** A name the server accepts for an entrant (no spaces or braces). */
function entrantName(name: string): string {
  return name.replace(/[\s{}]+/g, "_").slice(0, 60) || "guest";
}

/** The entry panel of `eventId`: `phase` tells it the event's phase at each poll; `stop` ends
 * its feed. */
export function entryPanel(eventId: string): { element: HTMLElement; phase: (phase: EventPhase) => void; stop: () => void } {
  const stop = new AbortController();
  const element = h("section", { class: "panel entry", id: "entry", "aria-label": "your entry" });
  const status = h("p", { id: "entry-status", role: "status" });
  const name = h("input", { id: "entry-name", value: entrantName(playerName()), maxlength: 60 });
  const button = h("button", { type: "submit", id: "enter-event" }, "Enter this event");
  let following = false;
  let open = false;

  async function follow(entry: StoredEntry): Promise<void> {
    if (following) return;
    following = true;
    fill(element, h("h2", {}, "Your entry"), status);
    status.textContent = `You are entered as ${entry.name}: your games open here when the event makes them.`;
    while (!stop.signal.aborted) {
      try {
        const updates = client.competitions.watchEntry({ eventId }, { headers: { "kafana-entry-token": entry.token }, signal: stop.signal });
        for await (const update of updates) {
          const game = update.assignment;
          if (game?.tableId) {
            storeSeat(game.tableId, { seat: game.seat, token: game.seatToken, name: entry.name });
            fill(element, h("h2", {}, "Your entry"), status, h("a", { href: `#/t/${game.tableId}`, class: "button", id: "entry-game" }, "Play your game"));
            status.textContent = `Your game is ready (seat ${game.seat + 1}).`;
            location.hash = `#/t/${game.tableId}`;
            return;
          }
          if (update.eventOver) {
            status.textContent = "The event is over.";
            return;
          }
        }
        return;
      } catch (error) {
        if (stop.signal.aborted) return;
        status.textContent = `Following your entry: ${explain(error)}; trying again…`;
        await new Promise((done) => setTimeout(done, 2000));
      }
    }
  }

  async function enter(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      const made = await client.competitions.enterEvent({ eventId, name: name.value.trim() });
      const entry = { name: made.name || name.value.trim(), token: made.entryToken };
      localStorage.setItem(ENTRY_KEY + eventId, JSON.stringify(entry));
      void follow(entry);
    } catch (error) {
      status.textContent = `Could not enter: ${explain(error)}`;
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  }

  function phase(now: EventPhase): void {
    const entry = storedEntry(eventId);
    if (entry) {
      void follow(entry);
      return;
    }
    const isOpen = now === EventPhase.OPEN;
    if (isOpen === open) return;
    open = isOpen;
    fill(element, isOpen
      ? h("form", { onsubmit: (e: SubmitEvent) => void enter(e) },
          h("h2", {}, "Enter this event"),
          h("label", { for: "entry-name" }, "Name "), name, " ", button, status)
      : null);
  }
  return { element, phase, stop: () => stop.abort() };
}
