/**
 * The messages between the simulation worker and an engine worker, the one place WebLLM runs.
 * Each `type` carries its own payload; every call has a `callId` its answer repeats. WebLLM's own
 * request and answer objects travel as they are: WebLLM checks the request, the backend reads the
 * answer tolerantly.
 */
import type { AppConfig, ChatCompletion, ChatCompletionRequestNonStreaming } from '@mlc-ai/web-llm';
import { z } from 'zod';
import { ModelListEntrySchema } from './models';

const callId = z.int().nonnegative();
const modelId = z.string().min(1).max(200);
const object = <T>() => z.custom<T>((v) => typeof v === 'object' && v !== null);

export const ToEngineSchema = z.discriminatedUnion('type', [
  /** Download (or read from the cache) and load one model; progress comes as `progress`. */
  z.object({ type: z.literal('load'), callId, modelId, appConfig: object<AppConfig>().optional() }),
  z.object({ type: z.literal('chat'), callId, request: object<ChatCompletionRequestNonStreaming>() }),
  /** Stops the generation under way; its `chat` then answers with what it had. */
  z.object({ type: z.literal('interrupt') }),
  z.object({ type: z.literal('unload'), callId }),
  /** WebLLM's records of these models and whether each is in its cache; `appConfig` adds records to WebLLM's prebuilt list (the user's own models). */
  z.object({ type: z.literal('models'), callId, modelIds: z.array(modelId).max(64), appConfig: object<AppConfig>().optional() }),
  z.object({ type: z.literal('delete'), callId, modelId, appConfig: object<AppConfig>().optional() }),
]);
export type ToEngine = z.infer<typeof ToEngineSchema>;

export const FromEngineSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), callId, fraction: z.number(), text: z.string() }),
  /** A load, unload or delete finished. */
  z.object({ type: z.literal('done'), callId }),
  z.object({ type: z.literal('answer'), callId, completion: object<ChatCompletion>() }),
  z.object({
    type: z.literal('models'),
    callId,
    models: z.array(ModelListEntrySchema).max(64),
    cached: z.record(z.string(), z.boolean()),
  }),
  /**
   * WebLLM's error as text ("DeviceLostError: …"), which errors.ts reads. `lost`: asked after
   * the failure, WebLLM said it holds no model any more (its device-lost handler unloaded it).
   */
  z.object({ type: z.literal('failed'), callId, error: z.string(), lost: z.literal(true).optional() }),
]);
export type FromEngine = z.infer<typeof FromEngineSchema>;
