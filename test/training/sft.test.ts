import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/agents/backends/types';
import { toolCallToMove } from '../../src/games/bilateral/llm/schema';
import type { Move } from '../../src/games/bilateral/moves';
import { zoneBinOf, type Role } from '../../src/games/bilateral/scenario';
import {
  messagesOfPromptText,
  seatExamples,
  seatMoves,
  selectedSeats,
  sftExamples,
  SftExampleSchema,
  SftTally,
  validationScenarios,
  type SftExample,
  type SftMessage,
  type SftSource,
} from '../../src/training/sft';
import { playedWithPrompts, scriptedRun } from './sft-runs';

const SEATS: Role[] = ['buyer', 'seller'];
const text = (m: SftMessage | undefined): string => (m !== undefined && 'content' in m ? m.content : '');
const users = (ex: SftExample): string[] => ex.messages.filter((m) => m.role === 'user').map(text);
const movesOf = (row: SftSource, seat: Role) => row.events.flatMap((e) => (e.type === 'move' && e.actor === seat ? [e.move] : []));
const checked = (ex: SftExample, where: string): SftExample => {
  const parsed = SftExampleSchema.safeParse(ex);
  if (!parsed.success) throw new Error(`${where}: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
};
/** The move a tool-call answer stands for, read back the way the live agent reads a model's call. */
function calledMove(ex: SftExample): Move {
  const last = ex.messages.at(-1);
  if (last === undefined || !('tool_calls' in last)) throw new Error('not a tool call');
  const call = last.tool_calls[0]!.function;
  const decoded = toolCallToMove(call.name, call.arguments);
  if (!decoded.ok) throw new Error(decoded.error.message);
  return decoded.value;
}

let rows: SftSource[];
beforeAll(async () => {
  rows = await scriptedRun();
});

describe('SFT examples, one per move', () => {
  it('one example per move of the seat: the system prompt, one user message and the move, as a tool call or as JSON', () => {
    let examples = 0;
    for (const row of rows)
      for (const seat of SEATS) {
        const moves = movesOf(row, seat);
        const tools = sftExamples(row, seat, { interface: 'tools' });
        const json = sftExamples(row, seat, { interface: 'json' });
        // The counts the app's summary makes without building the examples say the same.
        expect(seatMoves(row, seat)).toBe(moves.length);
        expect(seatExamples(row, seat, 'per-move')).toBe(moves.length);
        expect(seatExamples(row, seat, 'multi-turn')).toBe(Math.min(1, moves.length));
        expect(tools).toHaveLength(moves.length);
        expect(json).toHaveLength(moves.length);
        moves.forEach((move, i) => {
          const t = checked(tools[i]!, `${row.jobId} ${seat} tools ${i}`);
          const j = checked(json[i]!, `${row.jobId} ${seat} json ${i}`);
          expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
          expect(j.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
          expect(text(t.messages[0])).toContain(`You are the ${seat}`);
          expect(t.tools?.map((x) => x.function.name)).toEqual(['make_offer', 'respond_to_offer', 'send_message', 'walk_away']);
          expect(j.tools).toBeUndefined();
          // The same observation either way; only the system prompt's last line (how to answer) differs.
          expect(users(t)).toEqual(users(j));
          const jsonMove = JSON.parse(text(j.messages[2])) as Move;
          expect(jsonMove.action).toEqual(move.action);
          // A tool call carries empty content, and the live agent reads it back as the same move.
          const call = t.messages[2] as Extract<SftMessage, { tool_calls: unknown }>;
          expect(call.content).toBe('');
          expect(calledMove(t)).toEqual(jsonMove);
          // Only the fields the move has: no null, nothing absent written out.
          const args = JSON.parse(call.tool_calls[0]!.function.arguments) as Record<string, unknown>;
          expect(Object.keys(args).sort()).toEqual(
            [
              ...(jsonMove.message !== undefined ? ['message'] : []),
              ...(move.action?.type === 'offer' ? ['price'] : []),
              ...(move.action?.type === 'accept' || move.action?.type === 'reject' ? ['decision'] : []),
            ].sort(),
          );
          examples++;
        });
      }
    expect(examples).toBeGreaterThan(1000);
  });

  it('multi-turn: one conversation per seat, the same prompts and moves, each tool call but the last answered', () => {
    let n = 0;
    for (const row of rows)
      for (const seat of SEATS) {
        const moves = movesOf(row, seat);
        for (const style of ['tools', 'json'] as const) {
          const perMove = sftExamples(row, seat, { interface: style });
          const multi = sftExamples(row, seat, { interface: style, format: 'multi-turn' });
          if (moves.length === 0) {
            expect(multi).toEqual([]);
            continue;
          }
          expect(multi).toHaveLength(1);
          const m = checked(multi[0]!, `${row.jobId} ${seat} ${style}`).messages;
          expect(m[0]).toEqual(perMove[0]!.messages[0]);
          expect(users(multi[0]!)).toEqual(perMove.map((ex) => text(ex.messages[1])));
          const answers = m.filter((x) => x.role === 'assistant');
          expect(answers).toHaveLength(moves.length);
          // The per-move answers, their call ids apart.
          const strip = (x: SftMessage) => JSON.stringify(x).replace(/"call_\d+"/g, '"call"');
          expect(answers.map(strip)).toEqual(perMove.map((ex) => strip(ex.messages[2]!)));
          expect(m.filter((x) => x.role === 'tool')).toHaveLength(style === 'tools' ? moves.length - 1 : 0);
          n++;
        }
      }
    expect(n).toBeGreaterThan(400);
  });

  it('scripted teachers get short templated messages, which the other side then reads in its observation', () => {
    const row = rows.find((r) => r.buyer === 'boulware' && r.seller === 'conceder') as SftSource;
    const buyer = sftExamples(row, 'buyer', { interface: 'json' });
    const moves = buyer.map((ex) => JSON.parse(text(ex.messages[2])));
    for (const move of moves) {
      expect(typeof move.message).toBe('string');
      expect(move.message.length).toBeLessThan(80);
    }
    expect(moves[0].message).toMatch(/\$\d+\.\d\d/);
    // The seller's observations quote the buyer's templated messages.
    const seller = sftExamples(row, 'seller', { interface: 'json' });
    expect(text(seller.at(-1)!.messages[1])).toContain(`buyer: ${JSON.stringify(moves[0].message)}`);
    // Without templates the moves are the log's own.
    const bare = sftExamples(row, 'buyer', { interface: 'json', templates: false });
    expect(JSON.parse(text(bare[0]!.messages[2]))).not.toHaveProperty('message');
  });
});

describe('SFT examples are what the live agent is sent', () => {
  /** The example a request and the move that answered it make: the request's two messages and tools, then the move. */
  const expected = (req: ChatRequest) => ({
    messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
    tools: req.tools?.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
  });
  const prompt = (ex: SftExample) => ({ messages: ex.messages.slice(0, 2), tools: ex.tools });
  const buyerUsers = (source: SftSource) => sftExamples(source, 'buyer', { interface: 'tools', templates: false }).map((ex) => text(ex.messages[1]));

  for (const style of ['tools', 'json'] as const)
    it(`each move's example is the request the LLM agent made for it, in either seat (${style})`, async () => {
      let refused = 0;
      for (const [i, strategy] of ['boulware', 'tit-for-tat', 'conceder'].entries()) {
        const played = await playedWithPrompts(style, strategy, i);
        refused += played.refused;
        const { source, sent } = played;
        // The model's prompts as kept on its moves; then rebuilt from the log alone, as for a scripted seat.
        const stripped: SftSource = {
          ...source,
          events: source.events.map((e) => (e.type === 'move' || e.type === 'invalid' ? { ...e, call: undefined } : e)),
        };
        for (const from of [source, stripped]) {
          const buyer = sftExamples(from, 'buyer', { interface: style, templates: false });
          expect(buyer.map(prompt)).toEqual(sent.buyer.map(expected));
        }
        // The scripted seller's: what the agent would have been sent, had it played the seat.
        const seller = sftExamples(source, 'seller', { interface: style, templates: false });
        expect(seller.length).toBeGreaterThan(1);
        expect(seller.map(prompt)).toEqual(sent.seller.map(expected));
        // And the answers are the moves made.
        const moves = movesOf(source, 'buyer');
        const answers = sftExamples(source, 'buyer', { interface: style }).map((ex) =>
          style === 'tools' ? calledMove(ex) : (JSON.parse(text(ex.messages[2])) as Move),
        );
        expect(answers).toEqual(moves);
        const retried = sent.buyer.filter((r) => r.messages[1]?.content.includes('Your previous answer was refused'));
        expect(buyerUsers(source).filter((u) => u.includes('Your previous answer was refused'))).toHaveLength(retried.length);
      }
      expect(refused).toBeGreaterThan(0);
    });

  it('a prompt sent in the other interface gives way to one rebuilt for the export', async () => {
    const { source } = await playedWithPrompts('tools', 'boulware', 0);
    const stripped: SftSource = { ...source, events: source.events.map((e) => (e.type === 'move' || e.type === 'invalid' ? { ...e, call: undefined } : e)) };
    const crossed = sftExamples(source, 'buyer', { interface: 'json', templates: false });
    expect(text(crossed[0]!.messages[0])).not.toBe(text(sftExamples(source, 'buyer', { interface: 'tools' })[0]!.messages[0]));
    expect(crossed.every((ex) => SftExampleSchema.safeParse(ex).success)).toBe(true);
    expect(crossed).toEqual(sftExamples(stripped, 'buyer', { interface: 'json', templates: false }));
  });

  it('reads a recorded prompt back into its two messages, and refuses what is not one', () => {
    const recorded = '[system]\nYou are the buyer.\n\n[user]\nTurn 1.\n\nYour move.';
    expect(messagesOfPromptText(recorded)).toEqual([
      { role: 'system', content: 'You are the buyer.' },
      { role: 'user', content: 'Turn 1.\n\nYour move.' },
    ]);
    expect(messagesOfPromptText('[user]\nx')).toBeNull();
    expect(messagesOfPromptText('[system]\nno user part')).toBeNull();
  });
});

describe('SFT selection, split and summary', () => {
  it('the filters pick seats by agent, tier, zone, deals, share and individual rationality', () => {
    const all = rows.flatMap((r) => selectedSeats(r, { seat: 'both' }).map((seat) => ({ r, seat })));
    expect(all.length).toBe(rows.length * 2);
    const buyers = rows.flatMap((r) => selectedSeats(r, { seat: 'buyer', agent: 'boulware' }));
    expect(buyers.length).toBe(rows.filter((r) => r.buyer === 'boulware').length);
    const tier3 = rows.filter((r) => selectedSeats(r, { seat: 'seller', tier: 3 }).length > 0);
    expect(tier3.every((r) => r.scenario.tier === 3)).toBe(true);
    expect(rows.filter((r) => selectedSeats(r, { seat: 'both', zone: 1 }).length > 0).every((r) => zoneBinOf(r.scenario) === 1)).toBe(true);
    const dealOnly = rows.filter((r) => selectedSeats(r, { seat: 'both', dealsOnly: true }).length > 0);
    expect(dealOnly.length).toBeGreaterThan(0);
    expect(dealOnly.every((r) => r.events.at(-1)?.type === 'end' && (r.events.at(-1) as { outcome: { kind: string } }).outcome.kind === 'deal')).toBe(true);
    const shares = rows.flatMap((r) => selectedSeats(r, { seat: 'both', minShare: 0.6 }).map((seat) => ({ r, seat })));
    for (const { r, seat } of shares) {
      const end = r.events.at(-1) as { outcome: { kind: string; price: number } };
      const { buyerValue: v, sellerCost: c } = r.scenario;
      const share = seat === 'buyer' ? (v - end.outcome.price) / (v - c) : (end.outcome.price - c) / (v - c);
      expect(share).toBeGreaterThanOrEqual(0.6);
    }
    expect(shares.length).toBeLessThan(dealOnly.length * 2);
    // random is the one strategy that may trade at a loss: ir-only leaves exactly those seats out.
    let losses = 0;
    for (const r of rows)
      for (const seat of SEATS) {
        const end = r.events.at(-1) as { outcome: { kind: string; price: number } };
        const { buyerValue: v, sellerCost: c } = r.scenario;
        const loss = end.outcome.kind === 'deal' && (seat === 'buyer' ? v - end.outcome.price : end.outcome.price - c) < 0;
        if (loss) losses++;
        expect(selectedSeats(r, { seat, irOnly: true })).toEqual(loss ? [] : [seat]);
      }
    expect(losses).toBeGreaterThan(0);
  });

  it('splits by scenario: the same scenarios are held out every time, none on both sides, the fraction rounded', () => {
    const ids = Array.from({ length: 40 }, (_, i) => `standard-3-${i}`);
    const held = validationScenarios([...ids, ...ids], 0.1);
    expect(held.size).toBe(4);
    expect([...held].every((id) => ids.includes(id))).toBe(true);
    expect(validationScenarios(ids.slice().reverse(), 0.1)).toEqual(held);
    expect(validationScenarios(ids, 0).size).toBe(0);
    expect(validationScenarios(['one'], 0.5).size).toBe(0);
    expect(validationScenarios(['a', 'b'], 0.9).size).toBe(1);
  });

  it("tallies examples by tier and agent, and each seat's share once, however many examples it gave", () => {
    const held = validationScenarios(
      rows.map((r) => r.scenario.id),
      0.25,
    );
    const perMove = new SftTally();
    const multiTurn = new SftTally();
    let examples = 0;
    let seats = 0;
    for (const r of rows)
      for (const seat of selectedSeats(r, { seat: 'both', dealsOnly: true })) {
        const n = seatExamples(r, seat, 'per-move');
        perMove.add(r, seat, held.has(r.scenario.id), n);
        multiTurn.add(r, seat, held.has(r.scenario.id), seatExamples(r, seat, 'multi-turn'));
        examples += n;
        if (n > 0) seats++;
      }
    const s = perMove.summary();
    expect(s.examples).toBe(examples);
    expect(multiTurn.summary().examples).toBe(seats);
    expect(s.examples).toBeGreaterThan(seats);
    expect(s.train + s.validation).toBe(examples);
    expect(s.scenarios.validation).toBeGreaterThan(0);
    expect(Object.values(s.byTier).reduce((a, b) => a + b, 0)).toBe(examples);
    expect(Object.values(s.byAgent).reduce((a, b) => a + b, 0)).toBe(examples);
    // The shares are the seats', the same in either format.
    expect(s.share).toEqual(multiTurn.summary().share);
    expect(s.share.n).toBeLessThanOrEqual(seats);
    expect(s.share.histogram.reduce((a, b) => a + b, 0)).toBe(s.share.n);
    expect(s.share.min!).toBeLessThanOrEqual(s.share.median!);
    expect(s.share.median!).toBeLessThanOrEqual(s.share.max!);
  });
});
