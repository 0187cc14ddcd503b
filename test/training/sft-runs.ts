/**
 * Negotiations for the SFT tests: a scripted tournament, the seeded model against each scripted
 * strategy, and a negotiation in which every move's prompt is captured as the LLM agent sends it,
 * in both seats (a scripted seat's through a shadow agent that is asked each move and then plays
 * the strategy's).
 */
import type { ChatBackend, ChatRequest } from '../../src/agents/backends/types';
import type { MoveInterface } from '../../src/agents/llm/settings';
import { runSession } from '../../src/engine/session';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';
import { llmAgent } from '../../src/games/bilateral/llm/agent';
import { bilateral } from '../../src/games/bilateral/protocol';
import { makeAgent } from '../../src/games/bilateral/registry';
import { opponentOf, scenarioAt, type Role } from '../../src/games/bilateral/scenario';
import type { BilateralAgent, NegotiationResult } from '../../src/games/bilateral/tournament';
import type { SftSource } from '../../src/training/sft';
import { seededModel } from '../support/seeded-model';

export const STRATEGIES = ['boulware', 'conceder', 'tit-for-tat', 'hardliner', 'random'];
/** How the runs name the seeded model's seat (a model spec, so its prompts are taken from its moves). */
export const MODEL = 'openai:seeded';

/** 20 ordered pairs of strategies × 6 scenarios. */
export async function scriptedRun(): Promise<SftSource[]> {
  const rows: NegotiationResult[] = [];
  await runTournament(bilateralGame, { agents: STRATEGIES, scenariosPerPair: 6, preset: 'standard', seed: 3, selfPlay: false }, makeAgent, {
    onResult: (r) => void rows.push(r),
  });
  return rows.map((r) => ({ jobId: r.id, buyer: r.buyer, seller: r.seller, scenario: r.scenario, events: r.events }));
}

/** The seeded model (which now and then answers nothing usable) against each strategy, in both seats; its prompts are kept on its moves. */
export async function modelRun(style: MoveInterface, perPair: number): Promise<SftSource[]> {
  const rows: SftSource[] = [];
  for (const strategy of STRATEGIES)
    for (const seat of ['buyer', 'seller'] as Role[])
      for (let i = 0; i < perPair; i++) {
        const jobId = `${strategy}-${seat}-${i}`;
        const scenario = scenarioAt({ preset: 'standard', seed: 11 }, rows.length);
        const model = llmAgent(seededModel(), { interface: style, seed: 100 + rows.length });
        const other = makeAgent(strategy, opponentOf(seat), { jobId, seed: rows.length, rng: null as never });
        const record = await runSession(bilateral, scenario, seat === 'buyer' ? { buyer: model, seller: other } : { buyer: other, seller: model });
        rows.push({ jobId, buyer: seat === 'buyer' ? MODEL : strategy, seller: seat === 'seller' ? MODEL : strategy, scenario, events: record.events });
      }
  return rows;
}

/** A backend that records each request and answers nothing usable. */
function recorder(sent: ChatRequest[]): ChatBackend {
  return {
    name: 'shadow',
    model: 'shadow',
    capabilities: { jsonSchema: true, tools: true, thinking: true },
    complete: async (request) => (sent.push(request), { text: '', tokensIn: 0, tokensOut: 0 }),
  };
}

/** A strategy that, before each move, lets the LLM agent build (and send to a recorder) the request it would make. */
function shadowed(strategy: BilateralAgent, style: MoveInterface, sent: ChatRequest[]): BilateralAgent {
  const live = llmAgent(recorder(sent), { interface: style });
  return {
    async act(obs, signal, retry) {
      await live.act(obs, signal, retry);
      return strategy.act(obs, signal, retry);
    },
  };
}

/**
 * One negotiation, the seeded model as the buyer against a scripted seller, with the request the
 * LLM agent sends at every move of either seat: the model's answered requests (refused ones left
 * out) and the seller's shadow requests.
 */
export async function playedWithPrompts(
  style: MoveInterface,
  strategy: string,
  index: number,
): Promise<{ source: SftSource; sent: Record<Role, ChatRequest[]>; refused: number }> {
  const scenario = scenarioAt({ preset: 'standard', seed: 9 }, index);
  const asked: ChatRequest[] = [];
  const model = seededModel();
  const buyer = llmAgent({ ...model, complete: (req, signal) => (asked.push(req), model.complete(req, signal)) }, { interface: style, seed: 77 + index });
  const shadow: ChatRequest[] = [];
  const seller = shadowed(makeAgent(strategy, 'seller', { jobId: 'x', seed: index, rng: null as never }), style, shadow);
  const record = await runSession(bilateral, scenario, { buyer, seller });
  // The buyer's requests in order, each answered by its next event: a move, or a refusal.
  const replies = record.events.filter((e) => (e.type === 'move' || e.type === 'invalid') && e.actor === 'buyer');
  const answered = asked.filter((_, i) => replies[i]?.type === 'move');
  const refused = replies.filter((e) => e.type === 'invalid').length;
  return {
    source: { jobId: `played-${index}`, buyer: MODEL, seller: strategy, scenario, events: record.events },
    sent: { buyer: answered, seller: shadow },
    refused,
  };
}
