import { REJECT, type Move } from '../moves';
import { roundCents } from '../../../engine/money';
import type { StrategyDef } from './types';
import { ACCEPT_REPLY, MIN_PRICE, WALK_AWAY_REPLY, offerReply, type Reply } from './policy';

const CHATTER: readonly Reply[] = [
  'Let me think about that.',
  'Is that really your best price?',
  'I have other options, you know.',
  'This is a fine item.',
  'Hmm.',
].map((message): Reply => ({ kind: 'move', move: { message } satisfies Move }));

const REJECT_REPLY: Reply = { kind: 'move', move: REJECT };

/** Offers range over this band of list prices. */
const LOW = 0.3;
const HIGH = 1.7;

export const random: StrategyDef = {
  name: 'random',
  summary:
    'Legal random moves: offers anywhere from 0.3× to 1.7× list price, accepts, rejects, chats or walks away. The baseline that ignores its reservation.',
  params: {
    walk: { default: 0.03, min: 0, max: 1, doc: 'chance of walking away on any turn' },
  },
  deterministic: false,
  rational: false,
  create(p, { rng }) {
    const walk = p.walk as number;
    return {
      act(obs) {
        if (rng.next() < walk) return WALK_AWAY_REPLY;
        // offer and chat are always legal; accept and reject only with an offer to answer
        switch (rng.int(obs.pending === null ? 2 : 4)) {
          case 0: {
            const list = obs.item.listPrice;
            const price = roundCents(rng.uniform(LOW * list, HIGH * list));
            return offerReply(price < MIN_PRICE ? MIN_PRICE : price);
          }
          case 1:
            return rng.pick(CHATTER);
          case 2:
            return ACCEPT_REPLY;
          default:
            return REJECT_REPLY;
        }
      },
    };
  },
};
