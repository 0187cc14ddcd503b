import { onTestFinished } from 'vitest';
import { createAgentFactory, makeAgent } from '../../src/games/bilateral/registry';
import { WEBLLM_CAPABILITIES } from '../../src/agents/backends/webllm/backend';
import type { ChatBackend } from '../../src/agents/backends/types';
import { DEFAULT_LLM_SETTINGS } from '../../src/agents/llm/settings';
import type { NegotiationResult } from '../../src/games/bilateral/tournament';
import { Aggregator } from '../../src/games/bilateral/aggregate';
import { OracleScorer, scoredMetrics } from '../../src/games/bilateral/oracle-agents';
import { addBatches } from '../../src/storage/batches';
import { bilateralStore } from '../../src/storage/games/bilateral';
import { openDb, type ParleyDb } from '../../src/storage/db';
import { createRun } from '../../src/storage/runs';
import { negotiationRow, type NegotiationRow, type RunConfig, type RunRow } from '../../src/storage/schema';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';

/** A database of its own for one test, deleted when the test ends. */
export function freshDb(): ParleyDb {
  const db = openDb(`parley-test-${crypto.randomUUID()}`);
  onTestFinished(async () => {
    // Let the last auto-committing transaction finish, or the delete waits on it ("blocked").
    await new Promise((resolve) => setTimeout(resolve, 0));
    await db.delete();
  });
  return db;
}

export const TOURNAMENT: Extract<RunConfig, { kind: 'tournament' }>['tournament'] = {
  agents: ['boulware', 'conceder', 'hardliner', 'random'],
  scenariosPerPair: 3,
  preset: 'standard',
  seed: 7,
  selfPlay: false,
  deadline: { kind: 'fixed', turns: 20 },
  firstMover: 'seller',
  llm: { ...DEFAULT_LLM_SETTINGS },
};
export const TOURNAMENT_CONFIG: RunConfig = { kind: 'tournament', tournament: TOURNAMENT };

let played: Promise<NegotiationResult[]> | null = null;

/** The 36 negotiations of TOURNAMENT, played once by the real core and scripted agents. */
export function tournamentResults(): Promise<NegotiationResult[]> {
  played ??= (async () => {
    const out: NegotiationResult[] = [];
    await runTournament(bilateralGame, TOURNAMENT, makeAgent, { onResult: (r) => void out.push(r) });
    return out;
  })();
  return played;
}

export const toRow = negotiationRow;

export async function tournamentRows(runId: string): Promise<NegotiationRow[]> {
  return (await tournamentResults()).map((r) => toRow(runId, r));
}

/** Standings as importRun computes them, for comparing after a round trip. */
export function standingsOf(rows: NegotiationRow[], seed: number): RunRow['standings'] {
  const aggregator = new Aggregator();
  const scorer = new OracleScorer();
  for (const row of [...rows].sort((a, b) => a.index - b.index))
    aggregator.add(row.buyer, row.seller, row.scenario, scoredMetrics(row.buyer, row.seller, row.scenario, row.events, scorer));
  return aggregator.standings({ samples: 1000, seed });
}

/** A finished tournament run with all its negotiations stored directly. */
export async function storedTournament(
  db: ParleyDb,
  init: { id?: string; name?: string; createdAt?: number; rows?: number } = {},
): Promise<{ run: RunRow; rows: NegotiationRow[] }> {
  const run = await createRun(db, {
    id: init.id,
    name: init.name ?? 'four scripted agents',
    config: TOURNAMENT_CONFIG,
    planned: 36,
    createdAt: init.createdAt ?? 1_000,
  });
  const rows = (await tournamentRows(run.id)).slice(0, init.rows ?? 36);
  const done = rows.length;
  const finished: RunRow = {
    ...run,
    status: done === run.planned ? 'done' : 'interrupted',
    done,
    updatedAt: 2_000,
    standings: done ? standingsOf(rows, TOURNAMENT.seed) : null,
  };
  await db.transaction('rw', db.runs, db.batches, db.digests, async () => {
    await addBatches(db, bilateralStore, run.id, rows);
    await db.runs.put(finished);
  });
  return { run: finished, rows };
}

/** Stores negotiations of one run as an import does, in batches of 500 with their digests. */
export async function storeRows(db: ParleyDb, runId: string, rows: readonly NegotiationRow[]): Promise<void> {
  await db.transaction('rw', db.batches, db.digests, () => addBatches(db, bilateralStore, runId, rows));
}

/** Every row of every table, in key order: equal dumps mean an unchanged database. */
export async function dump(db: ParleyDb): Promise<unknown> {
  return {
    runs: await db.runs.toArray(),
    batches: await db.batches.toArray(),
    digests: await db.digests.toArray(),
    settings: await db.settings.toArray(),
  };
}

interface StorageBucket {
  indexedDB: IDBFactory;
  estimate(): Promise<StorageEstimate>;
}
interface StorageBucketManager {
  open(name: string, options: { quota: number }): Promise<StorageBucket>;
  delete(name: string): Promise<void>;
}

const bucketOf = new WeakMap<ParleyDb, StorageBucket>();

/**
 * The usage of a dbWithQuota's bucket, as the Runs page asks for the origin's after a delete.
 * Chromium checks a write against the usage it last counted, and a delete alone does not always
 * bring that count down: asking for an estimate does.
 */
export const bucketUsage = async (db: ParleyDb): Promise<number> => (await bucketOf.get(db)?.estimate())?.usage ?? NaN;

/** A ParleyDb in a storage bucket of its own, whose quota Chromium enforces for real. */
export async function dbWithQuota(quota: number): Promise<ParleyDb> {
  const buckets = (navigator as Navigator & { storageBuckets: StorageBucketManager }).storageBuckets;
  const name = `parley-test-${crypto.randomUUID()}`;
  const bucket = await buckets.open(name, { quota });
  const db = openDb('parley', { indexedDB: bucket.indexedDB, IDBKeyRange });
  bucketOf.set(db, bucket);
  onTestFinished(async () => {
    db.close();
    await buckets.delete(name);
  });
  return db;
}

/** Incompressible text: IndexedDB compresses values, so repeated characters would take no room. */
function noise(chars: number): string {
  const bytes = new Uint8Array(Math.ceil((chars * 3) / 4));
  for (let i = 0; i < bytes.length; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).slice(0, chars);
}

/**
 * A real negotiation carrying a large raw model answer (150 kB), as an LLM agent's invalid reply
 * would: the opener's first answer, refused before its first move (so the log still replays).
 */
export function bulky(row: NegotiationRow): NegotiationRow {
  const first = row.events[0]!;
  if (first.type !== 'move' || first.turn !== 0) throw new Error('bulky: the log must open with a move');
  const padding = {
    type: 'invalid' as const,
    turn: 0,
    actor: first.actor,
    attempt: 0,
    reason: 'not JSON',
    raw: noise(150_000),
  };
  return { ...row, events: [padding, ...row.events] };
}

/**
 * A finished run whose model seat (a ChatBackend in WebLLM's place) answers each turn first with
 * 150 kB of noise, which is refused and kept as an invalid answer, then walks away: a file of a few
 * MB that is what a real run could hold, so an import checks it (its scripted seats replayed) and
 * gets as far as writing it. 20 negotiations, 10 scenarios each way.
 */
export async function bulkyModelRun(db: ParleyDb, id: string): Promise<{ run: RunRow; rows: NegotiationRow[] }> {
  const model = 'Qwen3-0.6B-q4f16_1-MLC';
  const tournament = { ...TOURNAMENT, agents: ['boulware', `webllm:${model}`], scenariosPerPair: 10 };
  let calls = 0;
  const backend: ChatBackend = {
    name: 'webllm',
    model,
    capabilities: WEBLLM_CAPABILITIES,
    complete: async () =>
      calls++ % 2 === 0
        ? { text: noise(150_000), tokensIn: 100, tokensOut: 40_000 }
        : { text: '', toolCalls: [{ name: 'walk_away', arguments: '{}' }], tokensIn: 100, tokensOut: 5 },
  };
  const results: NegotiationResult[] = [];
  await runTournament(bilateralGame, tournament, createAgentFactory({}, { webllm: () => backend }), { onResult: (r) => void results.push(r) });
  const config: RunConfig = { kind: 'tournament', tournament };
  const run = await createRun(db, { id, name: 'a model that rambles', config, planned: results.length, createdAt: 1_000 });
  const rows = results.map((r) => toRow(run.id, r));
  const finished: RunRow = { ...run, status: 'done', done: rows.length, updatedAt: 2_000, standings: standingsOf(rows, tournament.seed) };
  await db.transaction('rw', db.runs, db.batches, db.digests, async () => {
    await addBatches(db, bilateralStore, run.id, rows);
    await db.runs.put(finished);
  });
  return { run: finished, rows };
}

/**
 * The same negotiation as a model agent would have played it: every move carries a call record with
 * a prompt, a raw answer and thinking, in text a model may write (quotes, new lines, emoji, a lone
 * surrogate, U+2028).
 */
export function withModelCalls(row: NegotiationRow): NegotiationRow {
  const events = row.events.map((e, i) =>
    e.type === 'move'
      ? {
          ...e,
          call: {
            backend: 'openai',
            model: 'gpt-test',
            latencyMs: 120.5 + i,
            tokensIn: 900 + i,
            tokensOut: 40,
            prompt: `You are the ${e.actor}.\nTurn ${e.turn}: the other side said "no" — 🤝?`,
            raw: `{"action":{"type":"offer","price":${i}}}\u2028`,
            thinking: `I weigh the "quoted" offer\tagain\ud800 …`,
          },
        }
      : e,
  );
  return { ...row, events };
}
