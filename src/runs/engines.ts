import type { EnginePool } from '../agents/backends/webllm/pool';
import type { LocalBackends } from '../games/bilateral/registry';
import { webllmModels } from '../agents/specs';

/** What a run or game needs from the engine pool: the backends, and a way to hear of trouble. */
export interface EngineUse {
  /** The WebLLM models in use, each once. */
  models: readonly string[];
  local: LocalBackends;
  /** Why a model this run uses stopped working (GPU lost, load failed), once it has. */
  trouble: () => string | null;
  release: () => void;
}

/** Marks the WebLLM models among `agents` as in use, and watches them for trouble until released. */
export function useEngines(engines: EnginePool | undefined, agents: readonly string[]): EngineUse {
  const models = webllmModels(agents);
  if (!engines || models.length === 0) return { models, local: {}, trouble: () => null, release: () => {} };
  let trouble: string | null = null;
  const unsubscribe = engines.subscribe((s) => {
    if (models.includes(s.modelId) && (s.state === 'lost' || s.state === 'failed')) trouble ??= s.text ?? `${s.modelId} stopped working.`;
  });
  const unuse = engines.use(models);
  return {
    models,
    local: { webllm: (id) => engines.backend(id) },
    trouble: () => trouble,
    release: () => {
      unsubscribe();
      unuse();
    },
  };
}
