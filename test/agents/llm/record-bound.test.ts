/**
 * A negotiation's record is bounded whatever the models send: each text at most MAX_RAW_LENGTH
 * characters (cut, with how much was left out), each seat's model text at most SEAT_TEXT_BUDGET
 * over the negotiation, an invalid answer's raw text kept once. Played over 1,000 turns (the
 * longest a scenario allows) by two models that answer as badly, or as verbosely, as they can:
 * through the model seat with a one-line prompt (the bilateral prompt's own context fitting takes
 * half a minute over 1,000 turns, and is not what is tested), and over 100 turns as llmAgent.
 */
import { describe, expect, it } from 'vitest';
import { scriptedBackend } from '../../../src/agents/backends/scripted';
import type { ChatRequest, ChatResponse } from '../../../src/agents/backends/types';
import { llmAgent } from '../../../src/games/bilateral/llm/agent';
import { modelSeat } from '../../../src/agents/llm/seat';
import { decodeMove } from '../../../src/games/bilateral/llm/decoder';
import { MAX_RAW_LENGTH } from '../../../src/agents/llm/answer';
import { moveJsonSchema, moveTools, MOVE_SCHEMA_NAME } from '../../../src/games/bilateral/llm/schema';
import type { BilateralObservation } from '../../../src/games/bilateral/protocol';
import type { Move } from '../../../src/games/bilateral/moves';
import { MAX_NEGOTIATION_RECORD_CHARS, SEAT_TEXT_BUDGET, TextBudget } from '../../../src/agents/llm/record';
import { BilateralEventSchema, type BilateralEvent } from '../../../src/games/bilateral/events';
import { playNegotiation } from '../../../src/games/bilateral/tournament';
import type { Role } from '../../../src/games/bilateral/scenario';
import { scenario } from '../fixtures';

const TURNS = 1000;

/** A backend that answers every request with `answer(request)`, as often as it is asked. */
function model(answer: (request: ChatRequest) => ChatResponse, contextWindow = 4096) {
  const backend = scriptedBackend([]);
  return { ...backend, contextWindow, complete: async (request: ChatRequest) => answer(request) };
}

/** The bilateral seat with a prompt of one line, so that 1,000 turns play in moments; the decoder and the record are llmAgent's. */
const quickSeat = (backend: ReturnType<typeof model>) =>
  modelSeat<BilateralObservation, Move>(
    backend,
    {
      tools: moveTools,
      jsonSchema: moveJsonSchema,
      schemaName: MOVE_SCHEMA_NAME,
      prompt: (obs) => [
        { role: 'system', content: `You are the ${obs.role}.` },
        { role: 'user', content: `Turn ${obs.turn}. ${'Context. '.repeat(2000)}` },
      ],
      decode: decodeMove,
    },
    { interface: 'json' },
  );

/** The model text a seat's events keep: raw answers, thinking and prompts, in characters. */
function modelText(events: readonly BilateralEvent[], role: Role): number {
  let n = 0;
  for (const e of events) {
    if ((e.type !== 'move' && e.type !== 'invalid') || e.actor !== role) continue;
    if (e.type === 'invalid') n += e.raw.length;
    n += (e.call?.raw?.length ?? 0) + (e.call?.thinking?.length ?? 0) + (e.call?.prompt?.length ?? 0);
  }
  return n;
}

function expectBounded(events: readonly BilateralEvent[]): void {
  const size = JSON.stringify(events).length;
  expect(size).toBeLessThanOrEqual(MAX_NEGOTIATION_RECORD_CHARS);
  for (const role of ['buyer', 'seller'] as const) {
    // The budget, and the short notes that stand for what did not fit (at most 120 characters each).
    const calls = events.filter((e) => (e.type === 'move' || e.type === 'invalid') && e.actor === role).length;
    expect(modelText(events, role)).toBeLessThanOrEqual(SEAT_TEXT_BUDGET + calls * 3 * 120);
  }
  for (const e of events) expect(BilateralEventSchema.safeParse(e).success).toBe(true);
}

describe('the record of a negotiation', () => {
  it('stays bounded over 1,000 turns of huge invalid answers, each kept once', async () => {
    // Over 200,000 characters with no move in it, and 60,000 of thinking.
    const text = `<think>${'hmm '.repeat(15_000)}</think>${'blah '.repeat(30_000)}`;
    const answer = (): ChatResponse => ({ text, tokensIn: 10, tokensOut: 10 });
    const played = await playNegotiation(scenario(150, 90, { listPrice: 200, turnLimit: TURNS }), {
      buyer: quickSeat(model(answer)),
      seller: quickSeat(model(answer)),
    });
    expect(played.outcome).toEqual({ kind: 'turn_limit', turn: TURNS });
    const invalid = played.events.filter((e) => e.type === 'invalid');
    expect(invalid).toHaveLength(3 * TURNS);
    // Kept once: on the event, never again on its call.
    for (const e of invalid) expect(e.call?.raw).toBeUndefined();
    // The first answers are kept up to the per-text limit, cut with a note of what was left out.
    expect(invalid[0]?.raw.length).toBeLessThanOrEqual(MAX_RAW_LENGTH);
    expect(invalid[0]?.raw.length).toBeGreaterThan(MAX_RAW_LENGTH - 100);
    expect(invalid[0]?.raw).toMatch(/… \[\d+ more characters\]$/);
    // Later ones, past the budget, as a note of their length.
    expect(invalid.at(-1)?.raw).toMatch(/^\[not kept: \d+ characters; this seat's record of model text is full \(1000000 characters a negotiation\)\]$/);
    expectBounded(played.events);
  });

  it('stays bounded over 1,000 turns of valid moves with long messages and thinking, in a huge context window', async () => {
    const talk = (role: string, request: ChatRequest): ChatResponse => ({
      text: `<think>${'I think, therefore I bargain. '.repeat(3000)}</think>${JSON.stringify({
        message: `${role} says: ${'n'.repeat(580)}`,
        action: { type: 'offer', price: role === 'buyer' ? 60 : 190 },
      })}`,
      tokensIn: request.messages.length,
      tokensOut: 3000,
    });
    const played = await playNegotiation(scenario(150, 90, { listPrice: 200, turnLimit: TURNS }), {
      buyer: quickSeat(model((r) => talk('buyer', r), 1_000_000)),
      seller: quickSeat(model((r) => talk('seller', r), 1_000_000)),
    });
    expect(played.outcome).toEqual({ kind: 'turn_limit', turn: TURNS });
    const moves = played.events.filter((e) => e.type === 'move');
    expect(moves).toHaveLength(TURNS);
    // Every message is kept (the protocol's part of the record), whatever the budget left of the model text.
    for (const e of moves) expect(e.move.message).toMatch(/says: n{580}$/);
    // A prompt is kept whole or not at all: a cut one would read as another prompt.
    const prompts = moves.flatMap((e) => (e.call?.prompt === undefined ? [] : [e.call.prompt]));
    expect(prompts.length).toBeGreaterThan(0);
    expect(prompts.length).toBeLessThan(TURNS);
    for (const p of prompts) expect(p).toMatch(/^\[system\]\n/);
    expectBounded(played.events);
  });

  it('as llmAgent plays it, with its own prompts: 100 turns of huge invalid answers stay within each seat’s budget', async () => {
    const text = `<think>${'hmm '.repeat(15_000)}</think>${'blah '.repeat(30_000)}`;
    const answer = (): ChatResponse => ({ text, tokensIn: 10, tokensOut: 10 });
    const played = await playNegotiation(scenario(150, 90, { listPrice: 200, turnLimit: 100 }), {
      buyer: llmAgent(model(answer, 128_000), { interface: 'json' }),
      seller: llmAgent(model(answer, 128_000), { interface: 'json' }),
    });
    expect(played.events.filter((e) => e.type === 'invalid')).toHaveLength(300);
    expect(played.events.filter((e) => e.type === 'invalid' && e.call?.raw !== undefined)).toEqual([]);
    expectBounded(played.events);
    // Without the budget, 300 answers of 210,000 characters (and their thinking) would be kept: over 60 million.
    expect(JSON.stringify(played.events).length).toBeLessThan(3_200_000);
  });
});

describe('TextBudget', () => {
  it('keeps texts whole while they fit, cuts one past the per-text limit, then keeps notes of their length', () => {
    const budget = new TextBudget(450_000);
    expect(budget.keep('short')).toBe('short');
    expect(budget.keep('a'.repeat(1000))).toBe('a'.repeat(1000));
    const cut = budget.keep('b'.repeat(300_000));
    expect(cut.startsWith('b'.repeat(MAX_RAW_LENGTH - 40))).toBe(true);
    expect(cut.endsWith(`… [${300_000 - (MAX_RAW_LENGTH - 40)} more characters]`)).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(MAX_RAW_LENGTH);
    expect(budget.left).toBe(450_000 - 1000 - cut.length);
    // What is left holds one more text cut to the limit, one cut to the rest, and then nothing.
    budget.keep('c'.repeat(300_000));
    const rest = budget.left;
    expect(budget.keep('d'.repeat(300_000)).length).toBeLessThanOrEqual(rest);
    expect(budget.left).toBeLessThan(120);
    expect(budget.keep('e'.repeat(5000))).toBe("[not kept: 5000 characters; this seat's record of model text is full (450000 characters a negotiation)]");
    // Short texts (no longer than a note) are always kept.
    expect(budget.keep('ok')).toBe('ok');
    expect(budget.keepWhole('f'.repeat(200))).toBeUndefined();
  });

  it('the stated bound is under 14 million characters', () => {
    expect(MAX_NEGOTIATION_RECORD_CHARS).toBeLessThan(14_000_000);
  });
});
