/**
 * Every state a WebLLM engine can be in, listed once: the pool's type and the worker messages'
 * enum both come from this list (kept apart from pool.ts so the page's message schemas do not load
 * the pool).
 */
export const ENGINE_STATES = ['loading', 'ready', 'failed', 'lost', 'unloaded'] as const;
export type EngineState = (typeof ENGINE_STATES)[number];
