import type { AgentFactory, BilateralAgent } from '../core/bilateral/tournament';
import { llmAgent } from './llm/agent';
import { RemoteBackends, type RemoteSettings } from './remote';
import { parseAgentSpec, strategyByName, type AgentSpec } from './specs';
import type { StrategyDef } from './scripted/types';

export * from './specs';

/**
 * An agent factory for tournaments and single games: scripted strategies, and remote models
 * through backends made from `remote` (one per provider and model, shared by every seat).
 * Specs must have been checked already.
 */
export function createAgentFactory(remote: RemoteSettings = {}): AgentFactory {
  const backends = new RemoteBackends(remote);
  // A tournament builds two agents per negotiation from the same few spec texts.
  const parsedCache = new Map<string, AgentSpec>();
  return (text, role, ctx): BilateralAgent => {
    let spec = parsedCache.get(text);
    if (!spec) {
      const parsed = parseAgentSpec(text);
      if (!parsed.ok) throw new Error(parsed.error);
      spec = parsed.value;
      parsedCache.set(text, spec);
    }
    if (spec.remote) {
      const opts = {
        ...(remote.thinking !== undefined ? { thinking: remote.thinking } : {}),
        ...(remote.temperature !== undefined ? { temperature: remote.temperature } : {}),
      };
      return llmAgent(backends.get(spec.remote), opts);
    }
    const def = strategyByName.get(spec.name) as StrategyDef;
    return def.create(spec.params, { role, rng: ctx.rng });
  };
}

/** Scripted strategies, and remote models at their providers' default addresses without keys. */
export const makeAgent: AgentFactory = createAgentFactory();
