import { describe, expect, it } from 'vitest';
import { scriptedBackend } from '../../src/agents/backends/scripted';
import { llmAgent } from '../../src/games/bilateral/llm/agent';
import { STRATEGY_NAMES } from '../../src/games/bilateral/specs';
import { playNegotiation } from '../../src/games/bilateral/tournament';
import { agent, scenario } from './fixtures';

/** A model that answers every turn with the same offer, however absurd. */
const insistsOn = (price: number) =>
  llmAgent(
    scriptedBackend(Array.from({ length: 200 }, () => () => ({ text: JSON.stringify({ action: { type: 'offer', price } }), tokensIn: 1, tokensOut: 1 }))),
  );

describe('a model that offers an absurd price', () => {
  it.each(STRATEGY_NAMES)('cannot put 1e306 on the table, so %s, selling, never accepts it', async (seller) => {
    const s = scenario(150, 90, { turnLimit: 10, firstMover: 'buyer' });
    const played = await playNegotiation(s, { buyer: insistsOn(1e306), seller: agent(seller, 'seller') });
    expect(played.outcome.kind === 'deal' && played.outcome.price > 100 * s.item.listPrice).toBe(false);
    const buyerInvalid = played.events.filter((e) => e.type === 'invalid' && e.actor === 'buyer');
    expect(buyerInvalid.length).toBeGreaterThan(0);
    for (const e of buyerInvalid) expect(e.type === 'invalid' && e.reason).toBe('offer price 1e+306 is more than 100 times the list price (at most 10000)');
    // The buyer never made a valid offer: every turn of its was forfeited.
    expect(played.events.some((e) => e.type === 'move' && e.actor === 'buyer')).toBe(false);
    expect(JSON.stringify(played.metrics)).not.toMatch(/e\+3\d\d/);
  });

  it('cannot offer under a cent either', async () => {
    const s = scenario(150, 90, { turnLimit: 4, firstMover: 'buyer' });
    const played = await playNegotiation(s, { buyer: insistsOn(0.001), seller: agent('accommodator', 'seller') });
    expect(played.outcome.kind).not.toBe('deal');
    const reasons = played.events.flatMap((e) => (e.type === 'invalid' ? [e.reason] : []));
    expect(new Set(reasons)).toEqual(new Set(['offer price must be at least $0.01 (got 0.001)']));
  });
});
