/**
 * The engine worker's side of protocol.ts: one WebLLM engine (one model at most) and WebLLM's
 * cache, answering the simulation worker. WebLLM is handed in, so that engine.worker.ts is the
 * only module that imports it and tests can serve a fake through the same code.
 */
import type { AppConfig, MLCEngine } from '@mlc-ai/web-llm';
import { assertNever } from '../../../engine/result';
import { errorText, isModelNotLoaded } from './errors';
import { modelListEntry } from './models';
import { ToEngineSchema, type FromEngine, type ToEngine } from './protocol';

/** The parts of the WebLLM package the engine worker uses. */
export type WebLlmApi = Pick<typeof import('@mlc-ai/web-llm'), 'CreateMLCEngine' | 'hasModelInCache' | 'deleteModelAllInfoInCache' | 'prebuiltAppConfig'>;

/** Where messages come from and go: the worker's global scope, or a test's channel. */
export interface EnginePort {
  postMessage(message: FromEngine): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

/** A failed move after which WebLLM said it holds no model: reported with `lost`, not as a plain failure. */
class Dropped {
  constructor(readonly cause: unknown) {}
}

/**
 * Whether the engine still holds its model, asked through a call that reads WebLLM's state
 * (`getMessage` goes through getLLMStates, as every request does, and has no side effect): a
 * device lost after load makes WebLLM unload, so it answers ModelNotLoadedError, whatever text
 * the move in progress failed with.
 */
async function holdsModel(engine: MLCEngine): Promise<{ held: true } | { held: false; why: unknown }> {
  try {
    await engine.getMessage();
    return { held: true };
  } catch (e) {
    return isModelNotLoaded(e) ? { held: false, why: e } : { held: true };
  }
}

export function serveEngine(port: EnginePort, webllm: WebLlmApi): void {
  let engine: MLCEngine | null = null;
  const post = (message: FromEngine) => port.postMessage(message);
  /** WebLLM's prebuilt list with the records a message adds (the user's own models), or undefined for the prebuilt list alone. */
  /**
   * The user's records first and WebLLM's others after: WebLLM takes the first record of an id
   * (findModelRecord), so a model of the user's own named like one of WebLLM's prebuilt builds
   * is checked and deleted as itself, not as the prebuilt one.
   */
  const withRecords = (extra: AppConfig | undefined): AppConfig | undefined => {
    if (!extra) return undefined;
    const own = new Set(extra.model_list.map((r) => r.model_id));
    return { ...webllm.prebuiltAppConfig, model_list: [...extra.model_list, ...webllm.prebuiltAppConfig.model_list.filter((r) => !own.has(r.model_id))] };
  };

  async function handle(message: Exclude<ToEngine, { type: 'interrupt' }>): Promise<FromEngine> {
    const { callId } = message;
    switch (message.type) {
      case 'load': {
        if (engine) throw new Error('this engine worker has a model loaded already');
        const loaded = await webllm.CreateMLCEngine(message.modelId, {
          initProgressCallback: (r) => post({ type: 'progress', callId, fraction: r.progress, text: String(r.text ?? '') }),
          ...(message.appConfig && { appConfig: message.appConfig }),
        });
        // A load whose device was lost can end without an error (WebLLM's reload swallows the
        // abort its own unload sends): a load is done only if the model is there.
        const state = await holdsModel(loaded);
        if (!state.held) throw state.why;
        engine = loaded;
        return { type: 'done', callId };
      }
      case 'chat': {
        if (!engine) throw new Error('EngineNotLoadedError: no model is loaded in this engine worker');
        const serving = engine;
        try {
          return { type: 'answer', callId, completion: await serving.chat.completions.create(message.request) };
        } catch (e) {
          // The move's own error may be any of TVM's disposal texts; WebLLM's state says whether the GPU went with it.
          const state = await holdsModel(serving);
          throw state.held ? e : new Dropped(e);
        }
      }
      case 'unload': {
        const loaded = engine;
        engine = null;
        await loaded?.unload();
        return { type: 'done', callId };
      }
      case 'models': {
        const config = withRecords(message.appConfig);
        const records = new Map((config ?? webllm.prebuiltAppConfig).model_list.map((r) => [r.model_id, r]));
        const models = message.modelIds.flatMap((id) => {
          const record = records.get(id);
          return record ? [modelListEntry(record)] : [];
        });
        // A cache WebLLM cannot read holds nothing usable.
        const cached = await Promise.all(models.map((m) => webllm.hasModelInCache(m.model_id, config).catch(() => false)));
        return { type: 'models', callId, models, cached: Object.fromEntries(models.map((m, i) => [m.model_id, cached[i] ?? false])) };
      }
      case 'delete':
        await webllm.deleteModelAllInfoInCache(message.modelId, withRecords(message.appConfig));
        return { type: 'done', callId };
      default:
        return assertNever(message);
    }
  }

  port.addEventListener('message', (event) => {
    const parsed = ToEngineSchema.safeParse(event.data);
    // Only the simulation worker talks to this worker; a message it did not mean has no call to answer.
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.type === 'interrupt') {
      // MLCEngine's returns a promise; nothing waits on it.
      void Promise.resolve(engine?.interruptGenerate()).catch(() => undefined);
      return;
    }
    handle(message).then(post, (e: unknown) =>
      post(
        e instanceof Dropped
          ? { type: 'failed', callId: message.callId, error: errorText(e.cause), lost: true }
          : { type: 'failed', callId: message.callId, error: errorText(e) },
      ),
    );
  });
}
