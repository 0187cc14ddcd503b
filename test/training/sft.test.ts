import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/agents/backends/types';
import { llmAgent } from '../../src/games/bilateral/llm/agent';
import { makeAgent } from '../../src/games/bilateral/registry';
import { bilateral } from '../../src/games/bilateral/protocol';
import type { NegotiationResult } from '../../src/games/bilateral/tournament';
import { scenarioAt, zoneBinOf, type Role } from '../../src/games/bilateral/scenario';
import { runSession } from '../../src/engine/session';
import {
  messagesOfPromptText,
  seatMoved,
  selectedSeats,
  sftExample,
  SftExampleSchema,
  SftTally,
  validationScenarios,
  type SftSource,
} from '../../src/training/sft';
import { seededModel } from '../support/seeded-model';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';

const AGENTS = ['boulware', 'conceder', 'tit-for-tat', 'hardliner', 'random'];

async function scriptedRun(): Promise<SftSource[]> {
  const rows: NegotiationResult[] = [];
  await runTournament(bilateralGame, { agents: AGENTS, scenariosPerPair: 6, preset: 'standard', seed: 3, selfPlay: false }, makeAgent, {
    onResult: (r) => void rows.push(r),
  });
  return rows.map((r) => ({ jobId: r.id, buyer: r.buyer, seller: r.seller, scenario: r.scenario, events: r.events }));
}

describe('SFT examples', () => {
  it('one example per seat that moved, valid in the chat format, as tool calls or as JSON moves', async () => {
    const rows = await scriptedRun();
    let tools = 0;
    let json = 0;
    for (const row of rows)
      for (const seat of ['buyer', 'seller'] as Role[]) {
        const moves = row.events.filter((e) => e.type === 'move' && e.actor === seat);
        for (const style of ['tools', 'json'] as const) {
          const ex = sftExample(row, seat, { interface: style });
          // The cheap check the app's summary counts with says the same.
          expect(seatMoved(row, seat)).toBe(ex !== null);
          if (moves.length === 0) {
            expect(ex).toBeNull();
            continue;
          }
          const parsed = SftExampleSchema.safeParse(ex);
          if (!parsed.success) throw new Error(`${row.jobId} ${seat} ${style}: ${parsed.error.issues[0]?.message}`);
          const m = parsed.data.messages;
          // One observation and one move per move of the seat.
          expect(m.filter((x) => x.role === 'user')).toHaveLength(moves.length);
          expect(m.filter((x) => x.role === 'assistant')).toHaveLength(moves.length);
          expect(m[0]?.role === 'system' && m[0].content).toContain(`You are the ${seat}`);
          if (style === 'tools') {
            tools++;
            expect(parsed.data.tools?.map((t) => t.function.name)).toEqual(['make_offer', 'respond_to_offer', 'send_message', 'walk_away']);
            expect(m.filter((x) => x.role === 'tool')).toHaveLength(moves.length - 1);
          } else {
            json++;
            expect(parsed.data.tools).toBeUndefined();
            // Each assistant turn is a move the JSON interface decodes, with the move's action.
            const assistant = m.filter((x) => x.role === 'assistant') as { content: string }[];
            assistant.forEach((a, i) => {
              const move = JSON.parse(a.content);
              const e = moves[i] as Extract<(typeof moves)[number], { type: 'move' }>;
              expect(move.action).toEqual(e.move.action);
            });
          }
        }
      }
    expect(tools).toBeGreaterThan(100);
    expect(json).toBe(tools);
  });

  it('scripted teachers get short templated messages, which the other side then reads in its observation', async () => {
    const rows = await scriptedRun();
    const row = rows.find((r) => r.buyer === 'boulware' && r.seller === 'conceder') as SftSource;
    const buyer = sftExample(row, 'buyer', { interface: 'json' });
    const moves = buyer!.messages.filter((m) => m.role === 'assistant').map((m) => JSON.parse((m as { content: string }).content));
    for (const move of moves) {
      expect(typeof move.message).toBe('string');
      expect(move.message.length).toBeLessThan(80);
    }
    expect(moves[0].message).toMatch(/\$\d+\.\d\d/);
    // The seller's observations quote the buyer's templated messages.
    const seller = sftExample(row, 'seller', { interface: 'json' });
    const lastObservation = seller!.messages.filter((m) => m.role === 'user').at(-1) as { content: string };
    expect(lastObservation.content).toContain(`buyer: ${JSON.stringify(moves[0].message)}`);
    // Without templates the moves are the log's own.
    const bare = sftExample(row, 'buyer', { interface: 'json', templates: false });
    expect(JSON.parse((bare!.messages[2] as { content: string }).content)).not.toHaveProperty('message');
  });

  it('a scripted seat is shown exactly the prompts the LLM agent builds from the same observations, refusals included', async () => {
    // A model that sometimes answers nothing usable, playing against boulware: record every request it got.
    for (const style of ['tools', 'json'] as const) {
      const requests: ChatRequest[] = [];
      const model = seededModel();
      const recorder = { ...model, complete: (req: ChatRequest, signal: AbortSignal) => (requests.push(req), model.complete(req, signal)) };
      const scenario = scenarioAt({ preset: 'standard', seed: 9 }, 1);
      const record = await runSession(bilateral, scenario, {
        buyer: llmAgent(recorder, { interface: style, seed: 77 }),
        seller: makeAgent('boulware', 'seller', { jobId: 'x', seed: 1, rng: null as never }),
      });
      const refused = record.events.filter((e) => e.type === 'invalid').length;
      expect(refused).toBeGreaterThan(0);
      // Rebuilt from the log without the prompts the model was sent (as for a scripted seat), templates off.
      const events = record.events.map((e) => (e.type === 'move' || e.type === 'invalid' ? { ...e, call: undefined } : e));
      const source: SftSource = { jobId: 'j', buyer: 'openai:m', seller: 'boulware', scenario, events };
      const ex = sftExample(source, 'buyer', { interface: style, templates: false });
      // The requests that were answered with a move: those whose next event is the buyer's move.
      const answered = requests.filter((_, i) => {
        const calls = record.events.filter((e) => (e.type === 'move' || e.type === 'invalid') && e.actor === 'buyer');
        return calls[i]?.type === 'move';
      });
      const users = ex!.messages.filter((m) => m.role === 'user').map((m) => (m as { content: string }).content);
      expect(users).toEqual(answered.map((r) => r.messages[1]?.content));
      expect((ex!.messages[0] as { content: string }).content).toBe(requests[0]?.messages[0]?.content);
      expect(users.some((u) => u.includes('Your previous answer was refused'))).toBe(true);
      // With the prompts kept on the record, they are used as they were sent.
      const kept = sftExample({ ...source, events: record.events }, 'buyer', { interface: style });
      expect(kept!.messages.filter((m) => m.role === 'user').map((m) => (m as { content: string }).content)).toEqual(users);
      // Exported in the other interface, the sent prompts (which asked for moves this way) give way to rebuilt ones.
      const other = style === 'tools' ? 'json' : 'tools';
      const crossed = sftExample({ ...source, events: record.events }, 'buyer', { interface: other, templates: false });
      expect((crossed!.messages[0] as { content: string }).content).not.toBe(requests[0]?.messages[0]?.content);
      expect(SftExampleSchema.safeParse(crossed).success).toBe(true);
      expect(crossed).toEqual(sftExample(source, 'buyer', { interface: other, templates: false }));
    }
  });

  it('reads a recorded prompt back into its two messages, and refuses what is not one', () => {
    const text = '[system]\nYou are the buyer.\n\n[user]\nTurn 1.\n\nYour move.';
    expect(messagesOfPromptText(text)).toEqual([
      { role: 'system', content: 'You are the buyer.' },
      { role: 'user', content: 'Turn 1.\n\nYour move.' },
    ]);
    expect(messagesOfPromptText('[user]\nx')).toBeNull();
    expect(messagesOfPromptText('[system]\nno user part')).toBeNull();
  });

  it('the filters pick seats by agent, tier, zone, deals, share and individual rationality', async () => {
    const rows = await scriptedRun();
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
      for (const seat of ['buyer', 'seller'] as Role[]) {
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

  it('tallies examples by tier and agent, and the share distribution', async () => {
    const rows = await scriptedRun();
    const tally = new SftTally();
    const held = validationScenarios(
      rows.map((r) => r.scenario.id),
      0.25,
    );
    let n = 0;
    for (const r of rows)
      for (const seat of selectedSeats(r, { seat: 'both', dealsOnly: true })) {
        tally.add(r, seat, held.has(r.scenario.id));
        n++;
      }
    const s = tally.summary();
    expect(s.examples).toBe(n);
    expect(s.train + s.validation).toBe(n);
    expect(s.scenarios.validation).toBeGreaterThan(0);
    expect(Object.values(s.byTier).reduce((a, b) => a + b, 0)).toBe(n);
    expect(Object.values(s.byAgent).reduce((a, b) => a + b, 0)).toBe(n);
    expect(s.share.histogram.reduce((a, b) => a + b, 0)).toBe(s.share.n);
    expect(s.share.min!).toBeLessThanOrEqual(s.share.median!);
    expect(s.share.median!).toBeLessThanOrEqual(s.share.max!);
  });
});
