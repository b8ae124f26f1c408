/**
 * The partnerships switch (`RulesSpec.partnerships`, an event's `CreateEventRequest.partnerships`:
 * four Tablić players as two sides, seats 1 and 3 against 2 and 4), for a form that makes Tablić
 * rules (the lobby's *New table* and *Play a bot*, the organiser's event): usable with four
 * Tablić players only, and off whenever the game or the seats change to something else.
 */
import { Game } from "@kafana/client";
import { h } from "./dom.js";

export interface PartnershipsSwitch {
  /** The form's row: the checkbox and its label. */
  element: HTMLElement;
  /** Usable for `game` with `players` seats (four Tablić players), else off and disabled. */
  sync(game: Game, players: number): void;
  /** Whether the rules get `partnerships`. */
  on(): boolean;
}

export function partnershipsSwitch(id: string): PartnershipsSwitch {
  const input = h("input", { id, type: "checkbox", disabled: true });
  const element = h("div", { class: "row" }, input, " ", h("label", { for: id }, "Partnerships (2 against 2)"),
    h("small", { class: "hint" }, " seats 1 and 3 against 2 and 4; four Tablić players only"));
  return {
    element,
    sync(game: Game, players: number): void {
      const usable = game === Game.TABLIC && players === 4;
      input.disabled = !usable;
      if (!usable) input.checked = false;
    },
    on: () => input.checked && !input.disabled,
  };
}
