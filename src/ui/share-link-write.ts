/**
 * Share links written: a setup into the hash's query, as share-link.ts reads it back. Apart from
 * the reading, which goes through zod, so that Home, whose links and lesson cards only write links,
 * loads no zod.
 */
import type { Deadline } from '../games/bilateral/scenario';
import type { ArenaSetup, Lesson, ModelSetup, TournamentSetup } from './lessons';

const turnsOf = (d: Deadline) => (d.kind === 'fixed' ? String(d.turns) : `${d.min}-${d.max}`);

function writeModels(params: URLSearchParams, setup: ModelSetup): void {
  if (setup.moveInterface) params.set('moves', setup.moveInterface);
  if (setup.temperature !== undefined) params.set('temp', String(setup.temperature));
}

export function writeArenaSetup(setup: ArenaSetup): string {
  const params = new URLSearchParams();
  if (setup.lesson) params.set('lesson', setup.lesson);
  if (setup.you) params.set('you', setup.you);
  if (setup.buyer && setup.you !== 'buyer' && setup.you !== 'both') params.set('buyer', setup.buyer);
  if (setup.seller && setup.you !== 'seller' && setup.you !== 'both') params.set('seller', setup.seller);
  const s = setup.scenario;
  if (s) {
    if ('preset' in s) {
      params.set('preset', s.preset);
      params.set('seed', String(s.seed));
    } else {
      params.set('item', s.itemId);
      params.set('value', String(s.value));
      params.set('cost', String(s.cost));
    }
    params.set('turns', turnsOf(s.deadline));
    if (s.deadline.kind === 'uncertain' && s.limit !== undefined) params.set('limit', String(s.limit));
    params.set('first', s.firstMover);
  }
  writeModels(params, setup);
  return params.toString();
}

export function writeTournamentSetup(setup: TournamentSetup): string {
  const params = new URLSearchParams();
  if (setup.lesson) params.set('lesson', setup.lesson);
  for (const agent of setup.agents ?? []) params.append('agent', agent);
  if (setup.scenariosPerPair !== undefined) params.set('per', String(setup.scenariosPerPair));
  if (setup.preset) params.set('preset', setup.preset);
  if (setup.seed !== undefined) params.set('seed', String(setup.seed));
  if (setup.selfPlay !== undefined) params.set('self', setup.selfPlay ? '1' : '0');
  if (setup.deadline) params.set('turns', turnsOf(setup.deadline));
  if (setup.firstMover) params.set('mover', setup.firstMover);
  if (setup.name) params.set('name', setup.name);
  writeModels(params, setup);
  return params.toString();
}

/** The hash that opens a lesson, its setup filled in. */
export function lessonHref(lesson: Lesson): string {
  return lesson.page === 'arena' ? `#/arena?${writeArenaSetup(lesson.setup)}` : `#/tournament?${writeTournamentSetup(lesson.setup)}`;
}
