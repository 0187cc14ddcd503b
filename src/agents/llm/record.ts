/**
 * How much of a model's text a seat keeps on its negotiation's record, whatever the model sends:
 * each text (raw answer, thinking, prompt) up to MAX_RAW_LENGTH characters (cut past it, noting
 * how much was left out), and all of them
 * together up to SEAT_TEXT_BUDGET per seat and negotiation. Past the budget a text is kept as a
 * note of its length. With at most 1,000 turns, so 500 a seat, and three attempts a turn, a
 * negotiation's record is bounded: see MAX_NEGOTIATION_RECORD_CHARS.
 */
import { MAX_RAW_LENGTH } from './answer';
import { clip } from './json-text';

/** Characters of model text (raw answers, thinking, prompts) one seat keeps over a whole negotiation. */
export const SEAT_TEXT_BUDGET = 1_000_000;
/** The longest note that stands for a text left out (with its length). */
const MAX_NOTE = 120;
/**
 * A call's record beside its texts, at most: backend (100) and model (300) names, the figures,
 * the reason (2,000, the schema's limit), the move with its message (600) and the JSON around them.
 */
const MAX_CALL_OVERHEAD = 3_500;
/** Calls one seat makes at most: 500 turns (of 1,000, alternating) and three attempts at each. */
const MAX_SEAT_CALLS = 1_500;

/**
 * The most characters a negotiation's record takes as JSON when both seats are models, whatever
 * they answer: each seat's budget, plus for every call the notes of its three texts and its
 * overhead: 13,580,000, under 14 million (about 14 MB of ASCII).
 */
export const MAX_NEGOTIATION_RECORD_CHARS = 2 * (SEAT_TEXT_BUDGET + MAX_SEAT_CALLS * (3 * MAX_NOTE + MAX_CALL_OVERHEAD));

/** One seat's budget over one negotiation. */
export class TextBudget {
  #left: number;

  constructor(readonly total: number = SEAT_TEXT_BUDGET) {
    this.#left = total;
  }

  get left(): number {
    return this.#left;
  }

  /** The text as kept: whole if it fits, cut to what is left (noting how much), or a note of its length once the budget is spent. */
  keep(text: string): string {
    if (text.length <= MAX_NOTE) return text;
    const room = Math.min(MAX_RAW_LENGTH, this.#left);
    if (room <= MAX_NOTE) return this.#leftOut(text);
    const kept = clip(text, room);
    this.#left -= kept.length;
    return kept;
  }

  /** The text if it fits whole, else undefined (a prompt cut short would read as another prompt). */
  keepWhole(text: string): string | undefined {
    if (text.length > Math.min(MAX_RAW_LENGTH, this.#left)) return undefined;
    this.#left -= text.length;
    return text;
  }

  #leftOut(text: string): string {
    return `[not kept: ${text.length} characters; this seat's record of model text is full (${this.total} characters a negotiation)]`;
  }
}
