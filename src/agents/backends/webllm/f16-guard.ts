/**
 * Parley's own check for shader-f16 before a half-precision build loads. WebLLM checks a record's
 * `required_features`, but its Qwen3 records carry none, so its `ShaderF16SupportError` never
 * fires for them: a q4f16 build on a GPU without shader-f16 (a run started on one machine and
 * resumed on another, or a spec typed by hand) fails later with an unrelated error and "Try
 * again". Here the adapter is asked first, the way WebLLM's `detectGPUDevice` asks (a
 * high-performance adapter), and such a load is refused with the q4f32 build named instead.
 */
import type { AppConfig } from '@mlc-ai/web-llm';
import { BackendError } from '../types';
import { probeWebGpu, type NavigatorLike } from './gpu';
import type { EngineLoader } from './pool';

/** MLC's half-precision quantizations (q4f16_1, q4f16_0, q0f16, q3f16_1, q4f16_awq …) name `f16` after the weight bits. */
const F16_BUILD = /(?:^|[-_])q\d+f16(?:[-_]|$)/i;

/**
 * Whether loading `modelId` needs shader-f16: its record lists the feature, or its id or library
 * names a half-precision MLC quantization.
 */
export function needsShaderF16(modelId: string, appConfig?: AppConfig): boolean {
  const record = appConfig?.model_list.find((r) => r.model_id === modelId);
  if (record?.required_features?.includes('shader-f16')) return true;
  const library = record?.model_lib.split(/[/?#]/).filter(Boolean).at(-1) ?? '';
  return F16_BUILD.test(modelId) || F16_BUILD.test(library);
}

/** The same build in single precision, where the id follows MLC's naming (q4f16_1 → q4f32_1). */
export function f32Alternative(modelId: string): string | null {
  const alternative = modelId.replace(/(^|[-_])q(\d+)f16(?=[-_]|$)/i, '$1q$2f32');
  return alternative === modelId ? null : alternative;
}

export function shaderF16Message(modelId: string): string {
  const alternative = f32Alternative(modelId);
  return (
    `${modelId} needs the GPU feature shader-f16, which this GPU lacks, so it cannot load here. ` +
    (alternative ? `Choose its single-precision build, ${alternative}, instead (it needs more memory).` : 'Choose a q4f32 build instead.')
  );
}

/**
 * Whether this browser's GPU has shader-f16; null when there is no adapter to ask (WebLLM's own
 * load then says what is missing).
 */
export async function hasShaderF16(nav: NavigatorLike): Promise<boolean | null> {
  const probe = await probeWebGpu(nav);
  return probe.kind === 'adapter' ? probe.features.includes('shader-f16') : null;
}

/**
 * The loader, with the check in front: a half-precision build on a GPU without shader-f16 is
 * refused before anything is downloaded (a BackendError 'gpu-lost', which pauses a run with the
 * message, as WebLLM's own feature errors do). The adapter is asked once per loader.
 */
export function guardShaderF16(loader: EngineLoader, nav: () => NavigatorLike): EngineLoader {
  let asked: Promise<boolean | null> | null = null;
  return async (modelId, opts) => {
    if (needsShaderF16(modelId, opts.appConfig)) {
      asked ??= hasShaderF16(nav());
      if ((await asked) === false) throw new BackendError('gpu-lost', shaderF16Message(modelId));
    }
    return loader(modelId, opts);
  };
}
