import type { BilateralAgentFactory, BilateralAgent } from './tournament';
import type { Role } from './scenario';
import type { ChatBackend } from '../../agents/backends/types';
import { llmAgent } from './llm/agent';
import { type LlmAgentOptions } from '../../agents/llm/seat';
import { llmSettings, type LlmSettings } from '../../agents/llm/settings';
import { RemoteBackends, type RemoteSettings } from '../../agents/remote';
import { parseAgentSpec, strategyByName } from './specs';
import { type AgentSpec } from '../../agents/specs';
import type { StrategyDef } from './strategies/types';

/** Backends that run on this device: the page's WebLLM engines, where there are any. */
export interface LocalBackends {
  /** The backend for one WebLLM model id; it loads the model on first use. */
  webllm?: (modelId: string) => ChatBackend;
}

export const WEBLLM_ONLY_IN_BROWSER = 'WebLLM models run only in the browser app (the Arena and Tournament pages), on the GPU of the machine that opens it';

/**
 * An agent factory for tournaments and single games: scripted strategies, remote models
 * through backends made from `remote` (one per provider and model, shared by every seat), and
 * WebLLM models through `local`, every model asked for its moves as `llm` says (the defaults
 * where it is silent). Specs must have been checked already.
 */
export function createAgentFactory(remote: RemoteSettings = {}, local: LocalBackends = {}, llm: Partial<LlmSettings> = {}): BilateralAgentFactory {
  const backends = new RemoteBackends(remote);
  const settings = llmSettings(llm);
  // A tournament builds two agents per negotiation from the same few spec texts.
  const parsedCache = new Map<string, AgentSpec>();
  // Deterministic strategies hold no state (they read everything from the observation), so one
  // instance per spec and role serves every negotiation.
  const shared: Record<Role, Map<string, BilateralAgent>> = { buyer: new Map(), seller: new Map() };
  return (text, role, ctx): BilateralAgent => {
    const known = shared[role].get(text);
    if (known !== undefined) return known;
    let spec = parsedCache.get(text);
    if (!spec) {
      const parsed = parseAgentSpec(text);
      if (!parsed.ok) throw new Error(parsed.error.message);
      spec = parsed.value;
      parsedCache.set(text, spec);
    }
    if (spec.webllm !== undefined) {
      if (!local.webllm) throw new Error(WEBLLM_ONLY_IN_BROWSER);
      return llmAgent(local.webllm(spec.webllm), modelOptions(settings, spec.thinking, ctx.seed));
    }
    if (spec.remote) return llmAgent(backends.get(spec.remote), modelOptions(settings, spec.thinking, ctx.seed));
    const def = strategyByName.get(spec.name) as StrategyDef;
    if (!def.deterministic) return def.create(spec.params, { role, rng: ctx.rng });
    const agent = def.create(spec.params, {
      role,
      get rng(): never {
        throw new Error(`${def.name} is deterministic and has no random stream`);
      },
    });
    shared[role].set(text, agent);
    return agent;
  };
}

/** How one model seat asks for its moves. */
function modelOptions(settings: LlmSettings, thinking: boolean | undefined, seed: number): LlmAgentOptions {
  return {
    interface: settings.interface,
    temperature: settings.temperature,
    ...(settings.maxTokens !== null && { maxTokens: settings.maxTokens }),
    ...((thinking || settings.thinking) && { thinking: true }),
    seed,
  };
}

/** Scripted strategies, and remote models at their providers' default addresses without keys. */
export const makeAgent: BilateralAgentFactory = createAgentFactory();
