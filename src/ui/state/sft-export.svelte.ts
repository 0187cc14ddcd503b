import type { SftFormat, SftSummary } from '../../training/sft';
import { ZONE_BINS, type Role } from '../../games/bilateral/scenario';
import type { MoveInterface } from '../../agents/llm/settings';
import type { RunRow } from '../../storage';
import { SftExportSchema, type ToWorker } from '../../worker/messages';
import { SftFilterSchema } from '../../training/sft';
import { rangeText, SFT_LIMITS } from './limits';
import { newId, sim } from './sim';

export type SftExportRequest = Omit<Extract<ToWorker, { type: 'sft.export' }>, 'type' | 'requestId'>;

/**
 * One run's fine-tuning export, built by the worker: first the summary of what the filters pick,
 * then (asked for separately) the train and validation files, with progress.
 */
export class SftExportJob {
  status = $state<'idle' | 'summing' | 'building' | 'failed'>('idle');
  summary = $state.raw<SftSummary | null>(null);
  negotiations = $state(0);
  progress = $state<{ done: number; total: number } | null>(null);
  error = $state<string | null>(null);
  /** The request in flight; an answer to an older one (filters since changed) is dropped. */
  private current: string | null = null;
  private unsubscribe: (() => void) | null = null;

  /** Forgets the summary (the filters changed) and stops a build under way. */
  reset(): void {
    this.cancel();
    this.status = 'idle';
    this.summary = null;
    this.error = null;
    this.progress = null;
  }

  cancel(): void {
    if (this.current !== null) sim().send({ type: 'sft.cancel', running: this.current });
    this.current = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** The summary alone, or (`build`) the files too: null when superseded or failed. */
  async run(request: SftExportRequest): Promise<{ train: Blob | null; validation: Blob | null } | null> {
    this.cancel();
    const requestId = newId();
    this.current = requestId;
    this.error = null;
    this.status = request.build ? 'building' : 'summing';
    this.progress = null;
    this.unsubscribe = sim().subscribe((m) => {
      if (m.type === 'sft.progress' && m.requestId === requestId) this.progress = { done: m.done, total: m.total };
    });
    const reply = await sim().request({ type: 'sft.export', requestId, ...request });
    if (this.current !== requestId) return null;
    this.current = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (reply.type !== 'sft.exported') {
      this.error = reply.message;
      this.status = 'failed';
      return null;
    }
    this.summary = reply.summary;
    this.negotiations = reply.negotiations;
    this.status = 'idle';
    return { train: reply.train, validation: reply.validation };
  }
}

/** A stored run's fine-tuning form: the filters, the split, the interface and the format, checked by the worker message's own schemas. */
export class SftForm {
  seat = $state<Role | 'both'>('both');
  agent = $state('');
  /** 0: any tier. */
  tier = $state(0);
  /** 0: any zone bin. */
  zone = $state(0);
  dealsOnly = $state(false);
  /** As typed: empty for none. */
  minShare = $state('');
  irOnly = $state(false);
  /** As typed: empty for none held out. */
  validation = $state('0.1');
  /** Empty: the run's own. */
  chosenInterface = $state<MoveInterface | ''>('');
  /** One example per move (what the agent is sent), or one multi-turn example per seat per negotiation. */
  format = $state<SftFormat>('per-move');

  constructor(private readonly run: () => RunRow) {}

  /** The run's agents, each once. */
  readonly agents = $derived.by((): string[] => {
    const { config } = this.run();
    return config.kind === 'tournament' ? [...config.tournament.agents] : [...new Set([config.buyer, config.seller])];
  });
  /** How the run's model seats were asked for their moves (an Arena game stored before that was recorded: tools). */
  readonly runInterface = $derived.by((): MoveInterface => {
    const { config } = this.run();
    return config.kind === 'tournament' ? config.tournament.llm.interface : (config.llm?.interface ?? 'tools');
  });
  readonly moveInterface = $derived<MoveInterface>(this.chosenInterface || this.runInterface);

  readonly #minShareValue = $derived(this.minShare.trim() === '' ? undefined : Number(this.minShare));
  readonly #validationValue = $derived(this.validation.trim() === '' ? 0 : Number(this.validation));
  readonly minShareProblem = $derived(
    this.#minShareValue === undefined || SftFilterSchema.shape.minShare.safeParse(this.#minShareValue).success
      ? null
      : `a share ${rangeText(SFT_LIMITS.minShare)}, or empty for none`,
  );
  readonly validationProblem = $derived(
    SftExportSchema.shape.validation.safeParse(this.#validationValue).success ? null : `a fraction ${rangeText(SFT_LIMITS.validation)}`,
  );
  readonly invalid = $derived(this.minShareProblem !== null || this.validationProblem !== null);

  /** The worker's request for the form as it stands (the summary only). */
  readonly request = $derived.by((): SftExportRequest => {
    const zone = ZONE_BINS.find((z) => z.bin === this.zone)?.bin;
    return {
      runId: this.run().id,
      filter: {
        seat: this.seat,
        ...(this.agent && { agent: this.agent }),
        ...(this.tier > 0 && { tier: this.tier }),
        ...(zone !== undefined && { zone }),
        dealsOnly: this.dealsOnly,
        ...(this.#minShareValue !== undefined && { minShare: this.#minShareValue }),
        irOnly: this.irOnly,
      },
      validation: this.#validationValue,
      interface: this.moveInterface,
      format: this.format,
      build: false,
    };
  });
}
