/**
 * The engine loader the simulation worker uses: WebLLM in an engine worker, behind Parley's
 * shader-f16 check (f16-guard.ts). The end-to-end build (`vite build --mode e2e`) resolves this
 * module to test/support/e2e-engine.ts instead (see vite.config.ts), since no weights can be
 * downloaded there; nothing in src/ imports test code.
 */
import { loadEngine } from './engine';
import { guardShaderF16 } from './f16-guard';
import type { NavigatorLike } from './gpu';
import type { EngineLoader } from './pool';

export const engineLoader: EngineLoader = guardShaderF16(loadEngine, () => navigator as NavigatorLike);
