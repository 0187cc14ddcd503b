/**
 * Forged games are refused: an imported file's scripted seats must have made exactly the moves
 * their strategies make on that scenario, against the other side's moves, from their seats' seeds
 * (storage/scripted-replay.ts, run by every import and by `parley check`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arenaSeat, playNegotiation } from '../../src/games/bilateral/tournament';
import type { BilateralEvent } from '../../src/games/bilateral/events';
import { makeScenario, type Role } from '../../src/games/bilateral/scenario';
import { roundCents } from '../../src/engine/money';
import { makeAgent } from '../../src/games/bilateral/registry';
import { readRunFile } from '../../src/storage/run-file';
import { scriptedSeatProblem } from '../../src/storage/scripted-replay';
import type { ExportedNegotiation } from '../../src/storage/schema';
import { runCli } from '../cli/helpers';

const dir = mkdtempSync(join(tmpdir(), 'parley-tamper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let lines: string[] = [];
beforeAll(async () => {
  const path = join(dir, 'run.jsonl');
  const r = await runCli(['tournament', '--agents', 'linear,conceder,random', '--scenarios', '3', '--seed', '5', '--samples', '0', '--jsonl', path]);
  expect(r.status).toBe(0);
  lines = readFileSync(path, 'utf8').split('\n');
});

const rows = () =>
  lines
    .slice(1)
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ExportedNegotiation);
const withRow = (jobId: string, edit: (n: ExportedNegotiation) => void): string =>
  lines
    .map((line, k) => {
      if (k === 0 || line === '') return line;
      const n = JSON.parse(line) as ExportedNegotiation & { oracle?: unknown };
      if (n.jobId !== jobId) return line;
      edit(n);
      delete n.oracle; // derived figures would be refused first; the forgery is the point here
      return JSON.stringify(n);
    })
    .join('\n');

/**
 * Rewrites a negotiation so that the buyer offers `price` on its first turn and the seller takes
 * it on its next: a short log the protocol accepts, whoever the seller is.
 */
function sellerTakes(n: ExportedNegotiation, price: number): void {
  const first = n.scenario.firstMover;
  const events: BilateralEvent[] = [];
  let turn = 0;
  if (first === 'seller')
    events.push({ type: 'move', turn: turn++, actor: 'seller', move: { action: { type: 'offer', price: roundCents(3 * n.scenario.item.listPrice) } } });
  events.push({ type: 'move', turn: turn++, actor: 'buyer', move: { action: { type: 'offer', price } } });
  events.push({ type: 'move', turn: turn++, actor: 'seller', move: { action: { type: 'accept' } } });
  events.push({ type: 'end', turn, outcome: { kind: 'deal', price, turn, acceptedBy: 'seller' } });
  n.events = events;
  n.outcome = 'deal';
}

describe('an imported file’s scripted seats', () => {
  it('a file as the tournament wrote it passes: every scripted move, random’s included, is its strategy’s', () => {
    const checked = readRunFile(lines.join('\n'));
    expect(checked.ok).toBe(true);
    expect(rows().some((r) => r.buyer === 'random' || r.seller === 'random')).toBe(true);
  });

  it('refuses linear taking the buyer’s opening bid at once, naming what it would have done', () => {
    // The buyer opens with its own first bid, as played; linear "accepts" it on the next turn.
    const target = rows().find((r) => r.seller === 'linear' && r.scenario.firstMover === 'buyer')!;
    const text = withRow(target.jobId, (n) => {
      const bid = n.events[0] as Extract<BilateralEvent, { type: 'move' }>;
      const price = bid.move.action?.type === 'offer' ? bid.move.action.price : NaN;
      n.events = [
        bid,
        { type: 'move', turn: 1, actor: 'seller', move: { action: { type: 'accept' } } },
        { type: 'end', turn: 2, outcome: { kind: 'deal', price, turn: 2, acceptedBy: 'seller' } },
      ];
      n.outcome = 'deal';
    });
    const checked = readRunFile(text);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.message).toMatch(
      new RegExp(
        `job "${target.jobId}"\\): events\\[1\\] \\(turn 1\\): linear, the seller, would have offered \\$\\d+\\.\\d{2} here, but the log says it accepted`,
      ),
    );
  });

  it('refuses a random seat that did not make the moves its seed gives it', () => {
    const target = rows().find((r) => r.seller === 'random')!;
    const text = withRow(target.jobId, (n) => sellerTakes(n, roundCents(n.scenario.item.listPrice)));
    const checked = readRunFile(text);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error.message).toMatch(/random, the seller, would have .* but the log says it/);
  });

  it('refuses a scripted seat that gave an invalid answer (a strategy never does)', () => {
    const target = rows().find((r) => r.buyer === 'conceder')!;
    const text = withRow(target.jobId, (n) => {
      const at = n.events.findIndex((e) => e.type === 'move' && e.actor === 'buyer');
      const e = n.events[at] as Extract<BilateralEvent, { type: 'move' }>;
      n.events.splice(at, 0, { type: 'invalid', turn: e.turn, actor: 'buyer', attempt: 0, reason: 'cannot read it', raw: 'hmm' });
      const retry = n.events[at + 1] as Extract<BilateralEvent, { type: 'move' }>;
      n.events[at + 1] = retry;
    });
    const checked = readRunFile(text);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error.message).toMatch(/conceder, the buyer, never gives an invalid answer or forfeits a turn/);
  });
});

describe('scriptedSeatProblem', () => {
  const scenario = makeScenario('tamper', { id: 'w', name: 'Widget', category: 'test', listPrice: 100 }, 90, 60, { turnLimit: 12, firstMover: 'buyer' });
  const play = async (buyer: string, seller: string, gameId: string) => {
    const seat = (role: Role) => arenaSeat(gameId, role);
    const played = await playNegotiation(scenario, { buyer: makeAgent(buyer, 'buyer', seat('buyer')), seller: makeAgent(seller, 'seller', seat('seller')) });
    return { events: played.events, seat };
  };

  it('an Arena game against a scripted opponent passes as played, with the seats seeded from the game’s id', async () => {
    const { events, seat } = await play('linear', 'random', 'game-1');
    expect(scriptedSeatProblem(scenario, events, { buyer: 'linear', seller: 'random' }, seat)).toBeNull();
    // The same log under another game's id: random's seed differs, so its moves are not its own.
    expect(scriptedSeatProblem(scenario, events, { buyer: 'linear', seller: 'random' }, (r) => arenaSeat('game-2', r))).toMatch(/random, the seller/);
  });

  it('does not check a person’s or a model’s seat, whatever they did', async () => {
    const { events, seat } = await play('linear', 'conceder', 'game-3');
    expect(scriptedSeatProblem(scenario, events, { buyer: 'human', seller: 'conceder' }, seat)).toBeNull();
    expect(scriptedSeatProblem(scenario, events, { buyer: 'openai:gpt-4o-mini', seller: 'conceder' }, seat)).toBeNull();
    // …but the scripted side is checked: a conceder that played linear's moves is caught.
    expect(scriptedSeatProblem(scenario, events, { buyer: 'conceder', seller: 'conceder' }, seat)).toMatch(
      /^events\[\d+\] \(turn \d+\): conceder, the buyer, would have/,
    );
  });
});
