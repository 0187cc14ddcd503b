/**
 * A stored run's fine-tuning data, built in the simulation worker (an example takes a few
 * milliseconds: a large run's would hold the page for a minute). A first pass picks the seats and
 * counts them (the summary the page shows before any download); a second builds the examples, a
 * page of negotiations at a time, yielding between pages so cancels and other work get through.
 */
import type { Role } from '../games/bilateral/scenario';
import type { MoveInterface } from '../agents/llm/settings';
import { loadNegotiations, scanRun, type NegotiationRow, type ParleyDb } from '../storage';
import {
  seatExamples,
  selectedSeats,
  sftExamples,
  SftTally,
  validationScenarios,
  type SftFilter,
  type SftFormat,
  type SftSource,
  type SftSummary,
} from '../training/sft';

export interface SftRequest {
  runId: string;
  filter: SftFilter;
  /** The fraction of scenarios held out (0 to 0.9). */
  validation: number;
  interface: MoveInterface;
  /** One example per move, or one per seat per negotiation. */
  format: SftFormat;
  /** Build the files too; without it only the summary is computed. */
  build: boolean;
}

export interface SftBuilt {
  summary: SftSummary;
  /** Negotiations in the run. */
  negotiations: number;
  train: Blob | null;
  validation: Blob | null;
}

export interface SftHooks {
  signal: AbortSignal;
  onProgress(done: number, total: number): void;
}

const PAGE = 100;
/** A page of work may run this long before the worker yields. */
const SLICE_MS = 30;
const yieldNow = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A row cut to what the summary reads: its scenario, agents and last event (the outcome). */
const light = (row: NegotiationRow): SftSource => ({
  jobId: row.jobId,
  buyer: row.buyer,
  seller: row.seller,
  scenario: row.scenario,
  events: row.events.slice(-1),
});

/** Text parts gathered into a Blob a megabyte at a time, so a large file is not one huge string. */
class BlobParts {
  private parts: string[] = [];
  private lines: string[] = [];
  private size = 0;
  add(line: string): void {
    this.lines.push(line);
    this.size += line.length;
    if (this.size >= 1 << 20) this.flush();
  }
  private flush(): void {
    if (this.lines.length > 0) this.parts.push(this.lines.join(''));
    this.lines = [];
    this.size = 0;
  }
  blob(): Blob {
    this.flush();
    return new Blob(this.parts, { type: 'application/x-ndjson' });
  }
}

export async function buildSft(db: ParleyDb, request: SftRequest, hooks: SftHooks): Promise<SftBuilt> {
  const { filter } = request;
  const { signal } = hooks;
  const picked: { source: SftSource; seat: Role; examples: number }[] = [];
  let negotiations = 0;
  await scanRun(db, request.runId, (rows) => {
    negotiations += rows.length;
    for (const row of rows)
      for (const seat of selectedSeats(row, filter)) {
        const examples = seatExamples(row, seat, request.format);
        if (examples > 0) picked.push({ source: light(row), seat, examples });
      }
  });
  signal.throwIfAborted();
  const heldOut = validationScenarios(
    picked.map((p) => p.source.scenario.id),
    request.validation,
  );
  const tally = new SftTally();
  for (const { source, seat, examples } of picked) tally.add(source, seat, heldOut.has(source.scenario.id), examples);
  const summary = tally.summary();
  if (!request.build) return { summary, negotiations, train: null, validation: null };

  const train = new BlobParts();
  const validation = new BlobParts();
  let done = 0;
  let sliceStart = performance.now();
  hooks.onProgress(0, negotiations);
  for (let offset = 0; offset < negotiations; offset += PAGE) {
    const { rows } = await loadNegotiations(db, request.runId, { offset, limit: PAGE });
    for (const row of rows) {
      for (const seat of selectedSeats(row, filter)) {
        const side = heldOut.has(row.scenario.id) ? validation : train;
        for (const example of sftExamples(row, seat, { interface: request.interface, format: request.format })) side.add(JSON.stringify(example) + '\n');
      }
      done++;
      if (performance.now() - sliceStart > SLICE_MS) {
        hooks.onProgress(done, negotiations);
        await yieldNow();
        signal.throwIfAborted();
        sliceStart = performance.now();
      }
    }
  }
  hooks.onProgress(negotiations, negotiations);
  return { summary, negotiations, train: train.blob(), validation: summary.validation > 0 ? validation.blob() : null };
}
