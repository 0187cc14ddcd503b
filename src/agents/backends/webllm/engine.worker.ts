/**
 * The worker WebLLM's engine runs in: WebLLM's own handler owns the MLCEngine and answers the
 * WebWorkerMLCEngine that loadEngine creates on the page's side.
 */
import { WebWorkerMLCEngineHandler } from '@mlc-ai/web-llm';

const handler = new WebWorkerMLCEngineHandler();
self.onmessage = (event: MessageEvent) => handler.onmessage(event);
