/**
 * Tournaments in which language models take seats, over the scripted ChatBackend: real prompts,
 * decoder, session runner and aggregator, with tokens and latency that vary from call to call.
 * Runs in Node and in the browser alike.
 */
import { scriptedBackend } from '../../src/agents/backends/scripted';
import type { ChatRequest, ChatResponse } from '../../src/agents/backends/types';
import { llmAgent } from '../../src/games/bilateral/llm/agent';
import { makeAgent } from '../../src/games/bilateral/registry';
import { Aggregator, type Standings } from '../../src/games/bilateral/aggregate';
import type { BilateralAgentFactory, BilateralAgent, NegotiationResult, TournamentConfig } from '../../src/games/bilateral/tournament';
import { runTournament } from '../../src/engine/tournament';
import { bilateralGame } from '../../src/games/bilateral/game';

/**
 * One seat's model: its first answer is not JSON (an invalid move, then a retry); then it offers
 * half (buyer) or 1.2 times (seller) the list price, and from its fourth call accepts any offer on
 * the table. Tokens in follow the prompt's length; latency grows with the call, on a fake clock.
 */
export function scriptedModel(): BilateralAgent {
  let time = 0;
  let call = 0;
  const answer = (req: ChatRequest): ChatResponse => {
    const n = call++;
    const system = req.messages.find((m) => m.role === 'system')?.content ?? '';
    const user = req.messages.find((m) => m.role === 'user')?.content ?? '';
    const tokensIn = Math.ceil((system.length + user.length) / 4);
    if (n === 0) return { text: 'Let me think about a fair price first.', tokensIn, tokensOut: 9 };
    if (n >= 3 && /you may accept it/.test(user)) return { text: '{"action":{"type":"accept"}}', tokensIn, tokensOut: 7 + n };
    const list = Number(/list price \$(\d+(?:\.\d+)?)/.exec(system)?.[1] ?? '100');
    const price = Math.round(list * (/You are the buyer/.test(system) ? 0.5 : 1.2) * 100) / 100;
    return { text: JSON.stringify({ message: 'My offer.', action: { type: 'offer', price } }), tokensIn, tokensOut: 20 + n };
  };
  const backend = scriptedBackend(
    Array.from({ length: 64 }, () => answer),
    { latencyMs: (i) => 40 + 15 * i, sleep: async (ms) => void (time += ms) },
  );
  return llmAgent(backend, { now: () => time });
}

/** Specs with a colon (`openai:model-a`) get a scripted model; strategies are the real ones. */
export const modelFactory: BilateralAgentFactory = (spec, role, ctx) => (spec.includes(':') ? scriptedModel() : makeAgent(spec, role, ctx));

export async function playModelTournament(
  config: Partial<TournamentConfig> & Pick<TournamentConfig, 'agents'>,
): Promise<{ results: NegotiationResult[]; standings: Standings }> {
  const results: NegotiationResult[] = [];
  const aggregator = new Aggregator();
  await runTournament(bilateralGame, { scenariosPerPair: 3, preset: 'standard', seed: 5, selfPlay: false, ...config }, modelFactory, {
    onResult: (r) => {
      results.push(r);
      aggregator.add(r.buyer, r.seller, r.scenario, r.metrics);
    },
  });
  return { results, standings: aggregator.standings({ samples: 0 }) };
}
