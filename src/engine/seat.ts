/** The seats of a tournament's jobs: what an agent factory is told about the seat it fills. */
import { createRng, deriveSeed, type Rng } from './rng';

/** What the factory is told about the seat it builds an agent for. */
export interface SeatInfo {
  /** The seat's own random stream (made only when read, so deterministic strategies never pay for it). */
  readonly rng: Rng;
  /** The job the seat plays in: a negotiation, a market. */
  readonly jobId: string;
  /** The seat's seed, from the run's seed, the job and the role: a model's sampling seeds come from it. */
  readonly seed: number;
}

/** Builds the agent for one seat of one job from the seat's spec (e.g. `boulware:beta=0.2`). */
export type AgentFactory<Role extends string, A> = (spec: string, role: Role, seat: SeatInfo) => A;

/**
 * The seat of `role` in job `jobId` of a run seeded `runSeed`. Each seat of each job draws from its
 * own stream, so results never depend on play order; seed and stream are made only when read.
 */
export class Seat implements SeatInfo {
  private stream: Rng | null = null;
  private seatSeed: number | null = null;
  constructor(
    private readonly runSeed: number,
    readonly jobId: string,
    private readonly role: string,
  ) {}
  get seed(): number {
    return (this.seatSeed ??= deriveSeed(this.runSeed, this.jobId, this.role));
  }
  get rng(): Rng {
    return (this.stream ??= createRng(this.seed));
  }
}
