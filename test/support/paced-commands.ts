/**
 * The paced model (paced-model.ts) for browser-mode tests: it runs in Node, and the test drives it
 * through these Vitest browser commands (`commands.pacedModelStart(…)` from 'vitest/browser').
 */
import { randomUUID } from 'node:crypto';
import type { BrowserCommand, BrowserCommandContext } from 'vitest/node';
import type { PacedModel, PaceOptions } from './paced-model.ts';

/**
 * Loaded through the test server on first use, so that the Vite config naming these commands does
 * not bundle the chat server into itself.
 */
const load = (context: BrowserCommandContext) =>
  context.project.vite.ssrLoadModule('/test/support/paced-model.ts') as Promise<typeof import('./paced-model.ts')>;

const models = new Map<string, PacedModel>();
const model = (id: string): PacedModel => {
  const found = models.get(id);
  if (!found) throw new Error(`no paced model ${id}`);
  return found;
};

export const pacedModelCommands = {
  pacedModelStart: async (context, opts: PaceOptions = {}) => {
    const { startPacedModel } = await load(context);
    const paced = await startPacedModel(opts);
    const id = randomUUID();
    models.set(id, paced);
    return { id, baseUrl: paced.baseUrl };
  },
  /** `n` null lets every request through from now on. */
  pacedModelAllow: (_context, id: string, n: number | null) => model(id).allow(n ?? undefined),
  pacedModelWhenHeld: (_context, id: string, n = 1) => model(id).whenHeld(n),
  pacedModelState: (_context, id: string) => ({ answered: model(id).answered, held: model(id).held }),
  pacedModelClose: async (_context, id: string) => {
    await models.get(id)?.close();
    models.delete(id);
  },
} satisfies Record<string, BrowserCommand<any[]>>;

type Commands = typeof pacedModelCommands;
type AsCommand<F> = F extends (context: never, ...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;

declare module 'vitest/browser' {
  interface BrowserCommands {
    pacedModelStart: AsCommand<Commands['pacedModelStart']>;
    pacedModelAllow: AsCommand<Commands['pacedModelAllow']>;
    pacedModelWhenHeld: AsCommand<Commands['pacedModelWhenHeld']>;
    pacedModelState: AsCommand<Commands['pacedModelState']>;
    pacedModelClose: AsCommand<Commands['pacedModelClose']>;
  }
}
