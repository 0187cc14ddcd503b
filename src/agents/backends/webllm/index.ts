/**
 * WebLLM: Qwen3 on the user's own GPU. Nothing here imports the WebLLM package itself; it is
 * loaded only by loadEngine, isCached, deleteCached, prebuiltModelList and checkWebGpu.
 */
export {
  webLlmBackend,
  toWebLlmRequest,
  fromWebLlmResponse,
  WEBLLM_CAPABILITIES,
  type WebLlmBackendOptions,
  type WebLlmEngineLike,
} from './backend';
export {
  loadEngine,
  isCached,
  deleteCached,
  type LoadOptions,
  type LoadProgress,
  type LoadedEngine,
  type EngineDeps,
  type WebLlmModule,
} from './engine';
export { generationError, loadError, GPU_LOST_MESSAGE } from './errors';
export {
  checkWebGpu,
  assessGpu,
  probeWebGpu,
  type GpuReport,
  type GpuProbe,
  type GpuFinding,
  type GpuFindingCode,
  type ModelFit,
  type Fit,
} from './gpu';
export {
  qwen3Models,
  qwen3ModelId,
  prebuiltModelList,
  estimateDownloadMB,
  quantizationFor,
  QWEN3_SIZES,
  type Qwen3Model,
  type Qwen3Size,
  type Quantization,
} from './models';
