/**
 * Market episodes through the environment server over real HTTP: the policy sells, a scripted
 * buyer strategy answers; each episode ends with the same outcome, reward and terms as an
 * in-process run of the same request given the same answers, and bad bodies are 4xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ChatResponse } from '../../src/agents/backends/types';
import { makeMarketAgent } from '../../src/games/market/specs';
import { marketReward } from '../../src/games/market/reward';
import { hashString } from '../../src/engine/rng';
import { playMarketEpisode, marketEpisodeSetup, MarketEpisodeRequestSchema, type MarketEpisodeInput } from '../../src/training/market-episode';
import { envProblem, startEnvServer, type EnvServer } from '../../src/training/server';
import { makeAgent } from '../../src/games/bilateral/registry';
import { post, stepBody } from './helpers';

/**
 * A seller policy that is a pure function of its prompt: a buyer still in the market and a product
 * from the catalog chosen by a hash, priced at 60–130% of list; now and then no move at all, and
 * now and then a buyer who has bought (refused by the rules).
 */
function sellerAnswer(messages: readonly ChatMessage[], tools: boolean): ChatResponse {
  const prompt = messages.map((m) => m.content).join('\n');
  const h = hashString(prompt);
  if (h % 11 === 0) return { text: 'I need a moment to think about the catalog.', tokensIn: 0, tokensOut: 0 };
  const products = [...prompt.matchAll(/^(p\d+) [^\n:]*: list \$([\d,.]+)/gm)].map((m) => ({
    id: m[1] as string,
    list: Number((m[2] as string).replace(/,/g, '')),
  }));
  const active = /Buyers still in the market: ([^.\n]+)\./.exec(prompt)?.[1]?.split(', ') ?? [];
  const everyone = [...new Set([...prompt.matchAll(/\b(b\d+)\b/g)].map((m) => m[1] as string))];
  const pool = h % 7 === 0 && everyone.length > 0 ? everyone : active.length > 0 ? active : everyone;
  const product = products[h % Math.max(1, products.length)] ?? { id: 'p1', list: 50 };
  const move = {
    buyer: pool[(h >>> 3) % Math.max(1, pool.length)] ?? 'b1',
    product: product.id,
    price: Math.round(product.list * (0.6 + ((h >>> 5) % 8) / 10) * 100) / 100,
    message: 'A fine choice for you.',
  };
  if (!tools) return { text: JSON.stringify(move), tokensIn: 0, tokensOut: 0 };
  return { text: '', toolCalls: [{ name: 'offer_product', arguments: JSON.stringify(move) }], tokensIn: 0, tokensOut: 0 };
}

const PRESETS = ['small', 'standard', 'scarce', 'held-out-7x5-segmented'];
const EPISODES = 20;
const request = (i: number): MarketEpisodeInput => ({
  game: 'market',
  opponent: i % 3 === 2 ? 'random' : 'margin',
  preset: PRESETS[i % PRESETS.length] as string,
  seed: 500 + 13 * i,
  interface: i % 2 === 0 ? 'tools' : 'json',
  ...(i % 5 === 0 && { index: 1, weights: { allocation: 1 } }),
});

describe('market episodes over HTTP', () => {
  let server: EnvServer;
  beforeAll(async () => {
    server = await startEnvServer({ makeAgent });
  });
  afterAll(async () => {
    await server.close();
  });

  it(`plays ${EPISODES} market episodes at once, each as the in-process run of its request`, async () => {
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health.games).toEqual(['bilateral', 'market']);
    const ends = await Promise.all(
      Array.from({ length: EPISODES }, async (_, i) => {
        const created = await post(`${server.url}/episodes`, request(i));
        expect(created.status).toBe(201);
        let view = created.json;
        const tools = Array.isArray(view.tools);
        expect(tools).toBe(request(i).interface === 'tools');
        if (tools) expect(view.tools.map((t: any) => t.function.name)).toEqual(['offer_product']);
        expect(view.messages[0].content).toContain('You are the seller in a market');
        let steps = 0;
        while (!view.done) {
          const r = await post(`${server.url}/episodes/${created.json.id}/step`, stepBody(sellerAnswer(view.messages, tools)));
          expect(r.status).toBe(200);
          view = r.json;
          steps++;
        }
        const after = await post(`${server.url}/episodes/${created.json.id}/step`, { completion: '{}' });
        expect([after.status, after.json.error.code]).toEqual([409, 'episode-over']);
        return { view, steps };
      }),
    );
    let invalid = 0;
    for (const [i, { view, steps }] of ends.entries()) {
      const local = await playMarketEpisode(request(i), makeMarketAgent, (r) => sellerAnswer(r.messages, r.tools !== undefined));
      // The seller's budget of turns running out cuts the market short; selling out or losing every buyer ends it.
      const cut = local.record.outcome.kind === 'budget_spent';
      expect(view).toEqual({
        done: true,
        terminated: !cut,
        truncated: cut,
        reward: local.reward.total,
        terms: local.reward.terms,
        outcome: local.record.outcome,
      });
      // The reward is marketReward's over the record, with the request's weights.
      const req = MarketEpisodeRequestSchema.parse(request(i));
      expect(local.reward).toEqual(marketReward(marketEpisodeSetup(req).scenario, local.record.events, req.weights ?? {}));
      // One step per answer the seller gave, refused ones included.
      expect(steps).toBe(local.record.events.filter((e) => 'actor' in e && e.actor === 'seller' && e.type !== 'forfeit').length);
      invalid += local.reward.counts.invalidMoves;
    }
    // The suite reaches the refusals: malformed answers and offers to buyers who have bought.
    expect(invalid).toBeGreaterThan(0);
    // And sales: some episodes extract surplus, and the rewards differ.
    expect(ends.some((e) => e.view.terms.extraction > 0)).toBe(true);
    expect(new Set(ends.map((e) => e.view.reward)).size).toBeGreaterThan(EPISODES / 4);
    // A limit against a hang, as the bilateral episodes' test has: on a busy machine 40 episodes take seconds.
  }, 120_000);

  it('refuses bad market bodies with a JSON 4xx', async () => {
    const bad = async (body: unknown, code: string) => {
      const r = await post(`${server.url}/episodes`, body);
      expect([r.status, r.json.error?.code]).toEqual([400, code]);
    };
    await bad({ ...request(0), seat: 'buyer' }, 'bad-body');
    await bad({ ...request(0), preset: 'huge' }, 'bad-body');
    await bad({ ...request(0), weights: { extraction: -1 } }, 'bad-body');
    await bad({ ...request(0), weights: { surplus: 1 } }, 'bad-body');
    await bad({ ...request(0), opponent: 'boulware' }, 'bad-opponent');
    await bad({ ...request(0), game: 'chess' }, 'unknown-game');
  });

  it('asks its opponent check about the market’s buyers too, and makes nothing for a refused one', async () => {
    const asked: string[] = [];
    const built: string[] = [];
    const s = await startEnvServer({
      makeAgent,
      makeMarketAgent: (spec, role, ctx) => {
        built.push(spec);
        return makeMarketAgent(spec, role, ctx);
      },
      checkOpponent: (spec, game) => {
        asked.push(`${game} ${spec}`);
        return spec.startsWith('anthropic:') ? envProblem('missing-key', { opponent: spec, variable: 'ANTHROPIC_API_KEY' }) : null;
      },
    });
    try {
      const refused = await post(`${s.url}/episodes`, { ...request(0), opponent: 'anthropic:claude-x' });
      expect([refused.status, refused.json.error]).toEqual([
        400,
        {
          code: 'missing-key',
          message: 'opponent: anthropic:claude-x needs a key: start the server with ANTHROPIC_API_KEY set (or with --base-url for your own server)',
        },
      ]);
      expect(built).toEqual([]);
      expect((await post(`${s.url}/episodes`, request(0))).status).toBe(201);
      expect(asked).toEqual(['market anthropic:claude-x', 'market margin']);
      expect(built).toEqual(['margin']);
    } finally {
      await s.close();
    }
  });
});
