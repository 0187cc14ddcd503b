/**
 * Whether the scripted seats of a negotiation from a file made the moves their strategies make.
 * A scripted strategy plays the same moves on the same scenario against the same moves (`random`
 * too, from its seat's seed), so a log whose scripted seat did anything else was edited, or was
 * played by a Parley whose strategies differ: either way it is not what the names say.
 */
import type { BilateralEvent } from '../games/bilateral/events';
import type { Move } from '../games/bilateral/moves';
import { bilateral, type BilateralState } from '../games/bilateral/protocol';
import type { BilateralAgent } from '../games/bilateral/tournament';
import { ROLES, type Role, type Scenario } from '../games/bilateral/scenario';
import { createAgentFactory } from '../games/bilateral/registry';
import { isModelSpec } from '../agents/specs';
import { parseAgentSpec } from '../games/bilateral/specs';
import type { SeatInfo } from '../engine/seat';

const NEVER = new AbortController().signal;

/** A move in words, for the message: `offered $12.50`, `accepted`, `said "…"`. */
function described(move: Move): string {
  const a = move.action;
  const said = move.message === undefined ? '' : ` (saying ${JSON.stringify(move.message.length > 40 ? `${move.message.slice(0, 39)}…` : move.message)})`;
  if (a === undefined) return `only talked${said}`;
  if (a.type === 'offer') return `offered $${a.price.toFixed(2)}${said}`;
  const verb = { accept: 'accepted', reject: 'rejected', walk_away: 'walked away' }[a.type];
  return `${verb}${said}`;
}

const sameMove = (a: Move, b: Move): boolean =>
  a.message === b.message &&
  a.action?.type === b.action?.type &&
  (a.action?.type !== 'offer' || (b.action?.type === 'offer' && a.action.price === b.action.price));

/**
 * The first move of a scripted seat that its strategy would not have made, in words, or null when
 * every scripted move is the strategy's (seats of models and people are not checked). `seat` gives
 * each seat's seeds as the game had them; the log must already have passed the protocol's replay.
 */
export function scriptedSeatProblem(
  scenario: Scenario,
  events: readonly BilateralEvent[],
  specs: Record<Role, string>,
  seat: (role: Role) => SeatInfo,
): string | null {
  const make = createAgentFactory();
  const agents: Partial<Record<Role, BilateralAgent>> = {};
  for (const role of ROLES) {
    const parsed = parseAgentSpec(specs[role]);
    if (!parsed.ok || isModelSpec(parsed.value)) continue; // a person, a model, or no spec of this Parley's
    agents[role] = make(specs[role], role, seat(role));
  }
  if (agents.buyer === undefined && agents.seller === undefined) return null;
  let state: BilateralState = bilateral.initialState(scenario);
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as BilateralEvent;
    if (e.type === 'end') break;
    const agent = agents[e.actor];
    const who = `${specs[e.actor]}, the ${e.actor}`;
    if (agent !== undefined) {
      if (e.type !== 'move') return `events[${i}] (turn ${e.turn}): ${who}, never gives an invalid answer or forfeits a turn, but the log says it did`;
      const reply = agent.act(bilateral.observe(state, e.actor), NEVER);
      if (reply instanceof Promise || reply.kind !== 'move') return null; // not a synchronous strategy: nothing to check against
      if (!sameMove(reply.move, e.move))
        return `events[${i}] (turn ${e.turn}): ${who}, would have ${described(reply.move)} here, but the log says it ${described(e.move)}: its moves are not what this strategy plays (the file was edited, or played by a Parley whose strategies differ)`;
    }
    if (e.type === 'move') {
      const next = bilateral.apply(state, e.actor, e.move);
      if (!next.ok) return null; // the protocol's replay names this
      state = next.value;
    } else if (e.type === 'forfeit') state = bilateral.forfeit(state, e.actor);
  }
  return null;
}
