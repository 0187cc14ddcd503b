import type { SessionEvent, SessionFailure, SessionRecord } from '../session';
import type { Role } from '../scenario';
import type { Move } from './moves';
import type { BilateralOutcome } from './protocol';

export type BilateralEvent = SessionEvent<Role, Move, BilateralOutcome>;
export type BilateralResult = BilateralOutcome | SessionFailure<Role>;
export type BilateralRecord = SessionRecord<Role, Move, BilateralOutcome>;
export type OutcomeKind = BilateralResult['kind'];
export const OUTCOME_KINDS: readonly OutcomeKind[] = ['deal', 'walk_away', 'turn_limit', 'error', 'cancelled'];
