/** Stored runs as the run, compare and negotiation pages show them, each read live (LiveRead). */
import type { Result } from '../../engine/result';
import { loadNegotiation, loadNegotiations, type NegotiationFilter, type NegotiationRow, type ParleyDb, type RunRow } from '../../storage';
import type { MarketRunRow } from '../../storage/market-schema';
import { readAnyRun, readRun } from '../../storage/runs';
import { checkNegotiation, type DamagedRun } from '../../storage/stored-records';
import { LiveRead } from './live.svelte';
import { storedErrors } from './runs.svelte';

/**
 * A stored run as read: a bilateral run (with a part of it set aside, `note` says which, and how
 * many of its negotiations ended in an error), a market run, a record that cannot be read, or none.
 */
export type StoredRun =
  | { kind: 'run'; run: RunRow; note: string | null; errors: number }
  | { kind: 'market'; run: MarketRunRow; note: string | null }
  | { kind: 'damaged'; damaged: DamagedRun }
  | { kind: 'missing' };

/** The run stored as `runId`, of either game (a run row names its game; a row that names none reads as bilateral). */
export async function readStoredRun(db: ParleyDb, runId: string): Promise<StoredRun> {
  const checked = await readAnyRun(db, runId);
  if (checked === undefined) return { kind: 'missing' };
  if (!checked.ok) return { kind: 'damaged', damaged: checked.error };
  const { run, note } = checked.value;
  if (run.game === 'bilateral') return { kind: 'run', run, note, errors: await storedErrors(db, run) };
  // A game registered at run time has no page of its own.
  return run.game === 'market' ? { kind: 'market', run, note } : { kind: 'missing' };
}

/** One stored run, read live: `current` is undefined while loading. */
export class StoredRunRead extends LiveRead<{ db: ParleyDb; runId: string }, StoredRun> {
  constructor(inputs: () => { db: ParleyDb; runId: string }) {
    super(inputs, ({ db, runId }) => readStoredRun(db, runId));
  }

  /** What was read, where a read that failed reads as a damaged record with its reason. */
  stored(runId: string): StoredRun | undefined {
    const problem = this.error;
    if (problem !== null) return { kind: 'damaged', damaged: { game: null, id: runId, name: null, createdAt: null, problem } };
    return this.current;
  }
}

/** A stored bilateral run's record alone, read live without its digests (a followed run's name and agents); null where there is none that reads. */
export class RunRowRead extends LiveRead<{ db: ParleyDb; runId: string | null }, RunRow | null> {
  constructor(inputs: () => { db: ParleyDb; runId: string | null }) {
    super(inputs, async ({ db, runId }) => {
      const checked = runId === null ? undefined : await readRun(db, runId);
      return checked?.ok ? checked.value.run : null;
    });
  }
}

/** A run's negotiations per page on its page. */
export const RUN_PAGE_SIZE = 50;

/** One page of a run's negotiations: those that could be read, how many match, and what could not be read. */
export interface NegotiationPage {
  rows: NegotiationRow[];
  total: number;
  problem: string | null;
}

const NO_PAGE: NegotiationPage = { rows: [], total: 0, problem: null };

async function readPage(db: ParleyDb, runId: string, offset: number, filter: NegotiationFilter): Promise<NegotiationPage> {
  // Filtering reads the digests alone; only the page's batches are read.
  const found = await loadNegotiations(db, runId, { offset, limit: RUN_PAGE_SIZE, filter });
  // A negotiation whose record cannot be read is left out of the page and counted, not drawn half.
  const checked = found.rows.map((row) => checkNegotiation(row));
  const rows = checked.flatMap((c) => (c.ok ? [c.value] : []));
  const bad = checked.length - rows.length;
  const problem = bad === 0 ? null : `${bad} negotiation${bad === 1 ? '' : 's'} on this page could not be read and ${bad === 1 ? 'is' : 'are'} not shown.`;
  return { rows, total: found.total, problem };
}

/**
 * A run's page: the run, and one page of its negotiations under a filter, both following the
 * database (a run that plays on shows its progress and new negotiations as they are stored).
 */
export class RunView {
  readonly run: StoredRunRead;
  readonly #page: LiveRead<{ db: ParleyDb; runId: string; view: string }, NegotiationPage>;

  /** `shown`: the page's offset and filter, or null until they are known (the filter needs the run's agents). */
  constructor(db: () => ParleyDb, runId: () => string, shown: () => { offset: number; filter: NegotiationFilter } | null) {
    this.run = new StoredRunRead(() => ({ db: db(), runId: runId() }));
    // As text, so that an equal filter given anew (the hash read again) reads nothing again.
    const view = $derived(JSON.stringify(shown()));
    this.#page = new LiveRead(
      () => ({ db: db(), runId: runId(), view }),
      ({ db, runId, view }) => {
        const asked = JSON.parse(view) as { offset: number; filter: NegotiationFilter } | null;
        return asked ? readPage(db, runId, asked.offset, asked.filter) : Promise.resolve(NO_PAGE);
      },
    );
  }

  get rows(): NegotiationRow[] {
    return this.#page.error === null ? (this.#page.current?.rows ?? []) : [];
  }
  get total(): number {
    return this.#page.current?.total ?? 0;
  }
  /** Why some or all of this page's negotiations could not be read, if they could not. */
  get rowsError(): string | null {
    const failed = this.#page.error;
    if (failed !== null) return `This page of negotiations could not be read: ${failed}. Export what can be read of the run from the Runs page.`;
    return this.#page.current?.problem ?? null;
  }
}

/** One side of a comparison: the run where a bilateral run is stored, else why not (damaged, with its reason, or none). */
export interface ComparedRun {
  run: RunRow | null;
  problem: string | null;
  errors: number;
}

const compared = (runId: string, read: StoredRunRead): ComparedRun | undefined => {
  const stored = read.stored(runId);
  if (stored === undefined) return undefined;
  if (stored.kind === 'run') return { run: stored.run, problem: null, errors: stored.errors };
  return { run: null, problem: stored.kind === 'damaged' ? stored.damaged.problem : null, errors: 0 };
};

/** Two stored runs side by side (the compare page), each read live. */
export class RunPair {
  readonly #a: StoredRunRead;
  readonly #b: StoredRunRead;

  constructor(
    db: () => ParleyDb,
    private readonly a: () => string,
    private readonly b: () => string,
  ) {
    this.#a = new StoredRunRead(() => ({ db: db(), runId: a() }));
    this.#b = new StoredRunRead(() => ({ db: db(), runId: b() }));
  }

  /** Both sides, once both are read; undefined while loading. */
  get runs(): { a: ComparedRun; b: ComparedRun } | undefined {
    const [sideA, sideB] = [compared(this.a(), this.#a), compared(this.b(), this.#b)];
    return sideA && sideB ? { a: sideA, b: sideB } : undefined;
  }
}

/** A stored negotiation read back, or why it cannot be read; null when it is not stored. */
type ReadNegotiation = Result<NegotiationRow, string> | null;

/** One stored negotiation (the inspector), and its run for its name and its debrief, each read live. */
export class NegotiationView {
  readonly #run: RunRowRead;
  readonly #negotiation: LiveRead<{ db: ParleyDb; runId: string; jobId: string }, ReadNegotiation>;

  constructor(db: () => ParleyDb, runId: () => string, jobId: () => string) {
    this.#run = new RunRowRead(() => ({ db: db(), runId: runId() }));
    this.#negotiation = new LiveRead(
      () => ({ db: db(), runId: runId(), jobId: jobId() }),
      async ({ db, runId, jobId }) => {
        const stored = await loadNegotiation(db, runId, jobId);
        return stored ? checkNegotiation(stored) : null;
      },
    );
  }

  /** The run, where a bilateral run is stored and readable. */
  get run(): RunRow | null {
    return this.#run.current ?? null;
  }
  /** The negotiation: undefined while loading, null when it is not stored or cannot be read (`damaged` says why). */
  get row(): NegotiationRow | null | undefined {
    if (this.#negotiation.error !== null) return null;
    const read = this.#negotiation.current;
    return this.#negotiation.settled ? (read?.ok ? read.value : null) : undefined;
  }
  /** Why the stored negotiation cannot be read, when it cannot. */
  get damaged(): string | null {
    const read = this.#negotiation.current;
    return this.#negotiation.error ?? (read && !read.ok ? read.error : null);
  }
}
