import { FromWorkerSchema, type FromWorker, type ToWorker } from './messages';

type Listener = (message: FromWorker) => void;
type Reply = Extract<FromWorker, { type: 'exported' | 'imported' | 'failed' }>;

const startWorker = (): Worker => new Worker(new URL('./sim.worker.ts', import.meta.url), { type: 'module', name: 'parley-sim' });

/** The page's side of the simulation worker: typed messages out, validated messages in. */
export class SimClient {
  private worker: Worker | null = null;
  private readonly listeners = new Set<Listener>();
  private readonly waiting = new Map<string, (reply: Reply) => void>();

  constructor(private readonly create: () => Worker = startWorker) {}

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const worker = this.create();
    worker.onmessage = (e: MessageEvent<unknown>) => {
      // Without zod's compiled fast path: compiling it for the standings schema took one 50–90 ms
      // task on the first progress message; parsed without it, a message costs a few ms.
      const parsed = FromWorkerSchema.safeParse(e.data, { jitless: true });
      if (!parsed.success) {
        console.error('parley: ignored a malformed message from the worker', parsed.error.issues[0]);
        return;
      }
      this.dispatch(parsed.data);
    };
    worker.onerror = (e) => this.dispatch({ type: 'failed', message: `the simulation worker crashed: ${e.message}` });
    this.worker = worker;
    return worker;
  }

  private dispatch(message: FromWorker): void {
    if ((message.type === 'exported' || message.type === 'imported' || message.type === 'failed') && message.requestId) {
      const resolve = this.waiting.get(message.requestId);
      if (resolve) {
        this.waiting.delete(message.requestId);
        resolve(message);
        return;
      }
    }
    for (const listener of this.listeners) listener(message);
  }

  send(message: ToWorker): void {
    this.ensure().postMessage(message);
  }

  /** Sends a request and waits for its reply (or the failure that names it). */
  request(message: Extract<ToWorker, { requestId: string }>): Promise<Reply> {
    return new Promise((resolve) => {
      this.waiting.set(message.requestId, resolve);
      this.send(message);
    });
  }

  subscribe(listener: Listener): () => void {
    this.ensure();
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  terminate(): void {
    this.worker?.terminate();
    this.worker = null;
  }
}
