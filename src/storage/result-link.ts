/**
 * Result links: a finished Arena game handed in without a file. The game goes into the URL's
 * fragment (`…#/handin/<payload>`, never sent to any server), as base64url of deflate-raw of a
 * short JSON: the run's id, name, start time and config, and the event log as stored. What a run
 * file repeats (the negotiation's seats, scenario, tier and outcome, the counts) is left out and
 * written back on reading, so the link expands into a run file that goes through readRunFile like
 * any other: the protocol's replay, the scripted seats' replay (a forged bot move is `tampered`).
 */
import { z } from 'zod';
import { DEFAULT_LLM_SETTINGS } from '../agents/llm/settings';
import { err, ok, type Result } from '../engine/result';
import { canonicalJson } from './content';
import type { ParleyDb } from './db';
import { EXPORT_FORMAT, fail, isRecord, jsonFile, parseJson, type ImportError } from './file-format';
import { loadNegotiation, readRun } from './runs';
import type { ExportedNegotiation, RunRecord } from './schema';
import { checkNegotiation } from './stored-records';

/** The fragment that starts a result link's payload. */
export const HAND_IN_PATH = '#/handin/';
export const RESULT_LINK_VERSION = 1;
/** Longer payloads are refused before they are decoded. */
export const MAX_PAYLOAD_CHARS = 256 * 1024;
/** A payload that inflates past this is refused (a small link cannot stand for a huge file). */
export const MAX_INFLATED_BYTES = 4 * 1024 * 1024;

const PAYLOAD = /^[A-Za-z0-9_-]+$/;
const LINK_IN_TEXT = /#\/handin\/([A-Za-z0-9_-]+)/g;

/** Every result link's payload in pasted text (links one a line, or mixed with other words), in order. */
export const payloadsIn = (text: string): string[] => [...text.matchAll(LINK_IN_TEXT)].map((m) => m[1] as string);

/** The link's JSON: `llm` is left out when it is the defaults, and null for a game stored without it. */
const LinkSchema = z.object({
  v: z.int().min(1),
  id: z.unknown(),
  name: z.unknown(),
  createdAt: z.unknown(),
  buyer: z.unknown(),
  seller: z.unknown(),
  scenario: z.unknown(),
  llm: z.unknown().optional(),
  events: z.array(z.unknown()),
});
type LinkGame = z.infer<typeof LinkSchema>;

/** An Arena game that can be handed in by link: finished, one negotiation. */
export function linkGame(run: RunRecord, row: ExportedNegotiation): LinkGame | null {
  const config = run.config;
  if (config.kind !== 'arena' || run.status !== 'done') return null;
  const llm = config.llm === undefined ? null : canonicalJson(config.llm) === canonicalJson(DEFAULT_LLM_SETTINGS) ? undefined : config.llm;
  return {
    v: RESULT_LINK_VERSION,
    id: run.id,
    name: run.name,
    createdAt: run.createdAt,
    buyer: config.buyer,
    seller: config.seller,
    scenario: config.scenario,
    ...(llm === undefined ? {} : { llm }),
    events: row.events,
  };
}

/** The payload of a game's result link (what follows HAND_IN_PATH). */
export async function resultPayload(game: LinkGame): Promise<string> {
  const bytes = await pipe(new TextEncoder().encode(JSON.stringify(game)), new CompressionStream('deflate-raw'), Infinity);
  return toBase64Url(bytes as Uint8Array);
}

/** The payload of a stored game's result link, or why it has none. */
export async function storedResultPayload(db: ParleyDb, runId: string): Promise<Result<string, string>> {
  const checked = await readRun(db, runId);
  if (!checked) return err('the game is not stored in this browser');
  if (!checked.ok) return err(`its record cannot be read (${checked.error.problem})`);
  const stored = await loadNegotiation(db, runId, '0');
  const row = stored ? checkNegotiation(stored) : null;
  if (!row?.ok) return err(row ? `its negotiation cannot be read (${row.error})` : 'its negotiation is not stored');
  const game = linkGame(checked.value.run, row.value);
  if (!game) return err('only a finished Arena game has a result link');
  return ok(await resultPayload(game));
}

/** A result link read: the run file it stands for, and the run's name where the link gave one. */
export interface ReadLink {
  text: string;
  name: string | null;
}

/**
 * A result link's payload as the run file it stands for (to be imported as files are), or why it
 * cannot be read: cut off or mistyped, too large, or from a newer Parley.
 */
export async function readResultPayload(payload: string): Promise<Result<ReadLink, ImportError>> {
  if (payload.length > MAX_PAYLOAD_CHARS)
    return fail(
      'too-large',
      `the link holds ${payload.length.toLocaleString('en-US')} characters; a result link holds at most ${MAX_PAYLOAD_CHARS.toLocaleString('en-US')}`,
    );
  if (!PAYLOAD.test(payload)) return fail('invalid-file', 'the link is not a result link: it holds characters a result link never has');
  const bytes = fromBase64Url(payload);
  if (!bytes) return fail('invalid-file', 'the link is cut off or mistyped: it does not decode');
  let inflated: Uint8Array | 'too-large';
  try {
    inflated = await pipe(bytes, new DecompressionStream('deflate-raw'), MAX_INFLATED_BYTES);
  } catch {
    return fail('invalid-file', 'the link is cut off or mistyped: its data does not unpack');
  }
  if (inflated === 'too-large') return fail('too-large', `the link unpacks to more than ${MAX_INFLATED_BYTES / 2 ** 20} MB`);
  let json: string;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(inflated);
  } catch {
    return fail('invalid-file', 'the link is cut off or mistyped: its data is not text');
  }
  const value = parseJson(json);
  if (!value.ok) return fail('invalid-file', `the link's data is not valid JSON (${value.error})`);
  const game = LinkSchema.safeParse(value.value);
  if (!game.success) return fail('invalid-file', 'the link is not a Parley result link');
  if (game.data.v > RESULT_LINK_VERSION)
    return fail(
      'wrong-version',
      `the link is version ${game.data.v}, made by a newer Parley; this one reads version ${RESULT_LINK_VERSION}. Update Parley to import it.`,
    );
  return ok({ text: runFileOf(game.data), name: typeof game.data.name === 'string' ? game.data.name : null });
}

/** The run file a link stands for: each value as the link gave it, so readRunFile judges them all. */
function runFileOf(game: LinkGame): string {
  const llm = game.llm === undefined ? { ...DEFAULT_LLM_SETTINGS } : game.llm === null ? undefined : game.llm;
  const config = { kind: 'arena', buyer: game.buyer, seller: game.seller, scenario: game.scenario, ...(llm === undefined ? {} : { llm }) };
  const run = {
    id: game.id,
    name: game.name,
    createdAt: game.createdAt,
    updatedAt: game.createdAt,
    status: 'done',
    config,
    planned: 1,
    done: 1,
    message: null,
  };
  const last = game.events.at(-1);
  const outcome = isRecord(last) && isRecord(last.outcome) ? last.outcome.kind : undefined;
  const tier = isRecord(game.scenario) ? game.scenario.tier : undefined;
  const row = { jobId: '0', index: 0, buyer: game.buyer, seller: game.seller, tier, outcome, scenario: game.scenario, events: game.events };
  return jsonFile({ format: EXPORT_FORMAT, version: 2, run }, 'negotiations', [JSON.stringify(row)]);
}

/** Bytes through a (de)compression stream; `'too-large'` once the output passes `limit`. */
async function pipe(input: Uint8Array, stream: CompressionStream | DecompressionStream, limit: number): Promise<Uint8Array | 'too-large'> {
  const reader = new Blob([input as BlobPart]).stream().pipeThrough(stream).getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return 'too-large';
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array | null {
  if (text.length % 4 === 1) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}
