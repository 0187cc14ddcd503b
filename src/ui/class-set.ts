/**
 * A class is a set the teacher chooses: of the Arena games stored in this browser, those handed in
 * (or all), of one setup (a lesson) and one day, with games ticked in or out by hand. The ranking is
 * computed over that set, each game once whatever its name, and the roster says who has handed in.
 * Pure: the class page's state reads the games and the settings and hands them here.
 */
import { z } from 'zod';
import { HUMAN_SPEC } from '../agents/specs';
import { canonicalJson } from '../storage/content';
import { studentsOf, type StoredGame } from './class-export';
import { LESSONS } from './lessons';
import { scenarioOf } from './share-link';

export const CLASS_SETTINGS_KEY = 'class';
const MAX_ROSTER = 500;
const MAX_NAME = 60;
const MAX_PICKS = 10_000;

export const ClassSettingsSchema = z.object({
  /** The class list, one name each, as the teacher typed or pasted it. */
  roster: z.array(z.string().max(MAX_NAME)).max(MAX_ROSTER),
  /** Only the games handed in (imported from a file or a link), or every game in this browser. */
  source: z.enum(['handed-in', 'all']),
  /** One setup's games (setupKey), or any. */
  setup: z.string().max(10_000).nullable(),
  /** One day's games (`YYYY-MM-DD`, local time), or any. */
  day: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .nullable(),
  /** Games ticked in, and ticked out, by hand: they override the filters. */
  added: z.array(z.string().max(200)).max(MAX_PICKS),
  removed: z.array(z.string().max(200)).max(MAX_PICKS),
});
export type ClassSettings = z.infer<typeof ClassSettingsSchema>;

export const DEFAULT_CLASS_SETTINGS: ClassSettings = { roster: [], source: 'handed-in', setup: null, day: null, added: [], removed: [] };

/** Settings as stored; anything unreadable falls back to the defaults rather than losing the page. */
export function readClassSettings(raw: unknown): ClassSettings {
  const parsed = ClassSettingsSchema.safeParse(raw);
  return parsed.success ? parsed.data : { ...DEFAULT_CLASS_SETTINGS };
}

/** A stored game as the class page lists it. */
export interface ClassEntry {
  game: StoredGame;
  /** Imported from a file or a result link, rather than played in this browser. */
  handedIn: boolean;
  /** The students who played it (one, two in pass and play, none for a game of bots alone). */
  students: string[];
  setup: string;
  day: string;
}

/** The seats and scenario a game was set up with: games of one lesson link share it. */
export const setupKey = (game: Pick<StoredGame, 'buyer' | 'seller' | 'scenario'>): string =>
  canonicalJson({ buyer: game.buyer, seller: game.seller, scenario: game.scenario });

/** The built-in lessons' setups, by key, for their titles. */
const lessonTitles = (): Map<string, string> => {
  const titles = new Map<string, string>();
  for (const lesson of LESSONS) {
    if (lesson.page !== 'arena' || !lesson.setup.scenario) continue;
    const scenario = scenarioOf(lesson.setup.scenario);
    const you = lesson.setup.you ?? 'none';
    const seat = (role: 'buyer' | 'seller') => (you === role ? HUMAN_SPEC : lesson.setup[role]);
    const buyer = seat('buyer');
    const seller = seat('seller');
    if (scenario && buyer && seller) titles.set(setupKey({ buyer, seller, scenario }), `Lesson: ${lesson.title}`);
  }
  return titles;
};

/** A setup in words: the lesson it is, or the item and the bots. */
export function setupLabel(game: Pick<StoredGame, 'buyer' | 'seller' | 'scenario'>, titles = lessonTitles()): string {
  const title = titles.get(setupKey(game));
  if (title) return title;
  const seat = (spec: string) => (spec === HUMAN_SPEC ? 'a student' : spec);
  return `${game.scenario.item.name}: ${seat(game.buyer)} buys from ${seat(game.seller)}`;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** The local day a game was played on. */
export const dayOf = (at: number): string => {
  const d = new Date(at);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
};

export function classEntry(game: StoredGame, handedIn: boolean): ClassEntry {
  return { game, handedIn, students: studentsOf(game), setup: setupKey(game), day: dayOf(game.createdAt) };
}

/** Whether the filters take a game, before the hand picks. */
const filtered = (entry: ClassEntry, s: ClassSettings): boolean =>
  (s.source === 'all' || entry.handedIn) && (s.setup === null || entry.setup === s.setup) && (s.day === null || entry.day === s.day);

export function isChosen(entry: ClassEntry, s: ClassSettings): boolean {
  if (s.removed.includes(entry.game.runId)) return false;
  if (s.added.includes(entry.game.runId)) return true;
  return filtered(entry, s);
}

/** The settings with one game ticked in or out by hand (a pick that matches the filters is dropped). */
export function pick(s: ClassSettings, entry: ClassEntry, chosen: boolean): ClassSettings {
  const id = entry.game.runId;
  const added = s.added.filter((x) => x !== id);
  const removed = s.removed.filter((x) => x !== id);
  if (chosen !== filtered(entry, s)) (chosen ? added : removed).push(id);
  return { ...s, added, removed };
}

/** What makes two stored games the same game (storage/content.ts says why the start time is in it). */
const contentOf = (g: StoredGame): string =>
  canonicalJson({ createdAt: g.createdAt, buyer: g.buyer, seller: g.seller, scenario: g.scenario, events: g.events });

/** The chosen games, each game once (a copy stored twice before imports were de-duplicated counts once). */
export function chosenGames(entries: readonly ClassEntry[], s: ClassSettings): { games: StoredGame[]; copies: number } {
  const seen = new Set<string>();
  const games: StoredGame[] = [];
  let copies = 0;
  const chosen = entries.filter((e) => isChosen(e, s)).sort((a, b) => a.game.createdAt - b.game.createdAt || a.game.runId.localeCompare(b.game.runId));
  for (const { game } of chosen) {
    const key = contentOf(game);
    if (seen.has(key)) copies += 1;
    else {
      seen.add(key);
      games.push(game);
    }
  }
  return { games, copies };
}

/** A name as the roster and the games are matched: case, accents' case and spacing aside. */
export const sameName = (name: string): string => name.normalize('NFC').trim().replace(/\s+/g, ' ').toLocaleLowerCase();

/** The roster from what the teacher typed or pasted: one name a line (or comma-separated), each once. */
export function parseRoster(text: string): string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const raw of text.split(/[\n,;]/)) {
    const name = raw.trim().replace(/\s+/g, ' ').slice(0, MAX_NAME);
    if (!name || seen.has(sameName(name))) continue;
    seen.add(sameName(name));
    names.push(name);
  }
  return names.slice(0, MAX_ROSTER);
}

export interface HandedInList {
  /** Roster names with at least one chosen game, with how many. */
  handedIn: { name: string; games: number }[];
  /** Roster names with none. */
  missing: string[];
  /** Students with chosen games whose names are not on the roster (a typo, or a name to add). */
  unlisted: { name: string; games: number }[];
}

export function handedInList(roster: readonly string[], games: readonly StoredGame[]): HandedInList {
  const counts = new Map<string, { name: string; games: number }>();
  for (const game of games)
    for (const name of studentsOf(game)) {
      const key = sameName(name);
      const row = counts.get(key) ?? { name, games: 0 };
      row.games += 1;
      counts.set(key, row);
    }
  const listed = new Set(roster.map(sameName));
  return {
    handedIn: roster.flatMap((name) => {
      const row = counts.get(sameName(name));
      return row ? [{ name, games: row.games }] : [];
    }),
    missing: roster.filter((name) => !counts.has(sameName(name))),
    unlisted: [...counts.entries()].filter(([key]) => !listed.has(key)).map(([, row]) => row),
  };
}
