/**
 * Lesson presets: each sets up the Arena or a tournament in one click, through the same share link
 * a teacher would copy, so a lesson opened anywhere gives the same scenarios.
 */
import type { Deadline, FirstMoverChoice, Preset, Role } from '../games/bilateral/scenario';
import type { MoveInterface } from '../agents/llm/settings';

export const LESSON_IDS = ['anchoring', 'patience', 'no-gains', 'private-information', 'price-tiers', 'class-tournament'] as const;
export type LessonId = (typeof LESSON_IDS)[number];

// The setups a lesson opens, which share links carry: here, below share-link.ts and its writer, so
// neither imports the other's types back.
/** Where an Arena scenario comes from: a preset and seed, or an item with a value and cost by hand. */
export type ScenarioSource = ({ preset: Preset; seed: number } | { itemId: string; value: number; cost: number }) & {
  deadline: Deadline;
  /** With an uncertain deadline, the exact limit (else drawn as the Arena draws it). */
  limit?: number;
  firstMover: Role;
};

/** How the language-model seats move; left out of a link where they are the defaults. */
export interface ModelSetup {
  moveInterface?: MoveInterface;
  temperature?: number;
}

export interface ArenaSetup extends ModelSetup {
  lesson?: LessonId;
  /** Who plays in person: one seat, neither, or both (pass and play: two students on one device). */
  you?: Role | 'none' | 'both';
  buyer?: string;
  seller?: string;
  scenario?: ScenarioSource;
}

export interface TournamentSetup extends ModelSetup {
  lesson?: LessonId;
  agents?: string[];
  scenariosPerPair?: number;
  preset?: Preset;
  seed?: number;
  selfPlay?: boolean;
  deadline?: Deadline;
  firstMover?: FirstMoverChoice;
  name?: string;
}

interface LessonText {
  id: LessonId;
  title: string;
  /** What the lesson sets up, in one sentence. */
  summary: string;
  /** What to look for, and what to try next. */
  look: string;
}

export type Lesson = (LessonText & { page: 'arena'; setup: ArenaSetup }) | (LessonText & { page: 'tournament'; setup: TournamentSetup });

const SCRIPTED = ['boulware', 'linear', 'conceder', 'tit-for-tat', 'hardliner', 'accommodator', 'haggler'];

export const LESSONS: readonly Lesson[] = [
  {
    id: 'anchoring',
    title: 'Anchoring',
    page: 'arena',
    summary: 'You buy from a seller who concedes in even steps; the first price named pulls the deal toward it.',
    look: 'Play once opening far below your value, then again (same seed) opening close to it. Compare the deal price and your surplus share in the debrief.',
    setup: {
      lesson: 'anchoring',
      you: 'buyer',
      seller: 'linear',
      scenario: { preset: 'standard', seed: 3, deadline: { kind: 'uncertain', min: 16, max: 24 }, limit: 20, firstMover: 'seller' },
    },
  },
  {
    id: 'patience',
    title: 'Patience',
    page: 'tournament',
    summary: 'Boulware (concedes late), linear and Conceder (concedes early) meet each other on the same scenarios.',
    look: 'In the leaderboard, compare surplus share and deal rate; in “Opening and patience”, see whether the more patient agents took a larger share.',
    setup: {
      lesson: 'patience',
      agents: ['boulware', 'boulware:beta=0.05', 'linear', 'conceder'],
      scenariosPerPair: 10,
      preset: 'standard',
      seed: 11,
      selfPlay: false,
      deadline: { kind: 'uncertain', min: 16, max: 24 },
      firstMover: 'alternate',
      name: 'Lesson: patience',
    },
  },
  {
    id: 'no-gains',
    title: 'No gains from trade',
    page: 'arena',
    summary: 'The buyer values a desk lamp at $25; the seller’s cost is $30. No price leaves both better off.',
    look: 'Rational agents end without a deal. A deal here would break individual rationality: one side would lose money. Try taking a seat and see what you do.',
    setup: {
      lesson: 'no-gains',
      you: 'none',
      buyer: 'tit-for-tat',
      seller: 'conceder',
      scenario: { itemId: 'desk-lamp', value: 25, cost: 30, deadline: { kind: 'fixed', turns: 12 }, firstMover: 'seller' },
    },
  },
  {
    id: 'private-information',
    title: 'Private information',
    page: 'tournament',
    summary: 'Values and costs drawn independently and uniformly; each side knows only its own (the Myerson–Satterthwaite setting).',
    look: 'Look at the deal rate: some scenarios with gains from trade end with no deal. Theory says no bargaining procedure captures all the gains here.',
    setup: {
      lesson: 'private-information',
      agents: ['boulware', 'linear', 'conceder', 'tit-for-tat'],
      scenariosPerPair: 20,
      preset: 'uniform',
      seed: 5,
      selfPlay: false,
      deadline: { kind: 'uncertain', min: 16, max: 24 },
      firstMover: 'alternate',
      name: 'Lesson: private information',
    },
  },
  {
    id: 'price-tiers',
    title: 'Price tiers and zone width',
    page: 'tournament',
    summary:
      'Five strategies on many items, from a few dollars to a few thousand; one of them, the haggler, concedes in dollars rather than in shares of the price.',
    look: 'In “By price tier”, see the haggler give cheap items away and stall on dear ones while the others stay level; in “By zone width”, see which keep their share on narrow zones: a wide zone hides weak play.',
    setup: {
      lesson: 'price-tiers',
      agents: ['boulware', 'conceder', 'hardliner', 'accommodator', 'haggler'],
      scenariosPerPair: 40,
      preset: 'standard',
      seed: 2,
      selfPlay: false,
      deadline: { kind: 'uncertain', min: 16, max: 24 },
      firstMover: 'alternate',
      name: 'Lesson: price tiers',
    },
  },
  {
    id: 'class-tournament',
    title: 'A class tournament',
    page: 'tournament',
    summary: 'Every scripted strategy against every other, both roles, one seed: everyone in class gets the same results.',
    look: 'Rank the strategies by expected surplus share, then open the head-to-head matrix: who beats whom, and why?',
    setup: {
      lesson: 'class-tournament',
      agents: SCRIPTED,
      scenariosPerPair: 20,
      preset: 'standard',
      seed: 2026,
      selfPlay: false,
      deadline: { kind: 'uncertain', min: 16, max: 24 },
      firstMover: 'alternate',
      name: 'Class tournament',
    },
  },
];

export const lessonById = (id: LessonId | undefined): Lesson | undefined => LESSONS.find((l) => l.id === id);
