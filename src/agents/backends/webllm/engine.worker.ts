/// <reference lib="webworker" />
/**
 * The engine worker: the one module that imports WebLLM, so the package lands in this worker's
 * chunk alone. It loads one model and answers the simulation worker (engine-host.ts).
 */
import * as webllm from '@mlc-ai/web-llm';
import { serveEngine } from './engine-host';

declare const self: DedicatedWorkerGlobalScope;

serveEngine(self, webllm);
