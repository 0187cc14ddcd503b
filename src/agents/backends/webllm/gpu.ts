/**
 * What this browser and GPU can run, in plain words. `probeWebGpu` asks the navigator and turns
 * the answer into plain data; `assessGpu` is pure and decides; `checkWebGpu` does both.
 *
 * WebGPU never says how much memory a GPU has, so whether a model fits is a documented guess:
 * - Hard limits are WebLLM's own (its `detectGPUDevice`, 0.2.86): below them nothing loads.
 * - A model's memory need (`vram_required_MB`) is compared with `navigator.deviceMemory`
 *   (Chromium only; the device's RAM in GB, rounded down and capped at 8): more than it is "no",
 *   more than three quarters of it is "maybe". Without deviceMemory every size is "maybe".
 * - A model WebLLM does not mark low-resource, on an adapter whose storage buffers stop below
 *   1 GiB (a phone-class GPU, as WebLLM's docs read that limit), is "maybe" at best.
 */
import { assertNever } from '../../../engine/result';
import { qwen3Models, quantizationFor, type ModelListEntry, type Quantization, type Qwen3Model } from './models';

const MiB = 2 ** 20;

/** The adapter limits WebLLM requires before it loads any model (its fallback minimums). */
export const WEBLLM_MIN_LIMITS = {
  maxBufferSize: 256 * MiB,
  maxStorageBufferBindingSize: 128 * MiB,
  maxComputeWorkgroupStorageSize: 32 * 1024,
  maxStorageBuffersPerShaderStage: 10,
} as const;
export type WebLlmLimit = keyof typeof WEBLLM_MIN_LIMITS;
const LIMIT_NAMES = Object.keys(WEBLLM_MIN_LIMITS) as WebLlmLimit[];

/** Below this storage-buffer limit an adapter is taken to be a small (phone-class) GPU. */
export const SMALL_GPU_STORAGE_BINDING = 1024 * MiB;
/** A model needing more than this share of the reported memory is a tight fit. */
export const TIGHT_SHARE = 0.75;

export interface AdapterSummary {
  vendor: string;
  architecture: string;
  description: string;
  /** A software adapter (SwiftShader, WARP): it runs on the CPU. */
  fallback: boolean;
}

/** What the navigator said, as plain data. */
export type GpuProbe =
  | { kind: 'no-webgpu' }
  | { kind: 'no-adapter' }
  | { kind: 'adapter-error'; message: string }
  | {
      kind: 'adapter';
      features: readonly string[];
      limits: Record<WebLlmLimit, number>;
      adapter: AdapterSummary;
      /** navigator.deviceMemory, in GB, where the browser reports it. */
      deviceMemoryGB?: number;
    };

export type GpuFinding =
  | { code: 'no-webgpu'; blocking: true; message: string }
  | { code: 'no-adapter'; blocking: true; message: string }
  | { code: 'adapter-error'; blocking: true; message: string }
  | { code: 'limit-too-small'; blocking: true; message: string; limit: WebLlmLimit; have: number; need: number }
  | { code: 'no-shader-f16'; blocking: false; message: string }
  | { code: 'software-adapter'; blocking: false; message: string };
export type GpuFindingCode = GpuFinding['code'];

export type Fit = 'yes' | 'maybe' | 'no';

export interface ModelFit {
  model: Qwen3Model;
  fit: Fit;
  /** Why, in one plain sentence. */
  reason: string;
}

export interface GpuReport {
  /** One or two plain sentences: what runs here, and the main reason if not everything does. */
  summary: string;
  /** At least one model may be tried. */
  canRun: boolean;
  adapter: AdapterSummary | null;
  shaderF16: boolean;
  /** The builds this adapter uses; null when no model can run. */
  quantization: Quantization | null;
  findings: GpuFinding[];
  /** One per Qwen3 size offered, smallest first. */
  models: ModelFit[];
}

/** The part of `navigator` this needs; a test passes its own. */
export interface NavigatorLike {
  gpu?: { requestAdapter(options?: GPURequestAdapterOptions): Promise<AdapterLike | null> };
  deviceMemory?: number;
}

/** The part of a GPUAdapter read here. */
export interface AdapterLike {
  features: { forEach(fn: (value: string) => void): void };
  limits: Partial<Record<WebLlmLimit, number>>;
  info?: Partial<Pick<GPUAdapterInfo, 'vendor' | 'architecture' | 'description' | 'isFallbackAdapter'>>;
}

/** Asks the navigator for a GPU adapter the way WebLLM does; never throws. */
export async function probeWebGpu(nav: NavigatorLike): Promise<GpuProbe> {
  if (!nav.gpu) return { kind: 'no-webgpu' };
  let adapter: AdapterLike | null;
  try {
    adapter = await nav.gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (e) {
    return { kind: 'adapter-error', message: e instanceof Error ? e.message : String(e) };
  }
  if (!adapter) return { kind: 'no-adapter' };
  const features: string[] = [];
  adapter.features.forEach((f) => features.push(f));
  const read = (name: WebLlmLimit) => [name, Number(adapter.limits[name] ?? 0)] as const;
  const limits = Object.fromEntries(LIMIT_NAMES.map(read)) as Record<WebLlmLimit, number>;
  const info = adapter.info ?? {};
  const probe: GpuProbe = {
    kind: 'adapter',
    features,
    limits,
    adapter: {
      vendor: info.vendor ?? '',
      architecture: info.architecture ?? '',
      description: info.description ?? '',
      fallback: info.isFallbackAdapter === true || /swiftshader/i.test(`${info.architecture} ${info.description}`),
    },
  };
  const memory = nav.deviceMemory;
  if (typeof memory === 'number' && Number.isFinite(memory) && memory > 0) probe.deviceMemoryGB = memory;
  return probe;
}

/** What this browser and GPU can run: the whole check, navigator included; the list is WebLLM's (from the engine worker). */
export async function checkWebGpu(nav: NavigatorLike, opts: { modelList: readonly ModelListEntry[] }): Promise<GpuReport> {
  return assessGpu(await probeWebGpu(nav), opts.modelList);
}

const mb = (bytes: number): string => `${Math.floor(bytes / MiB)} MB`;
const bytesText = (bytes: number): string => (bytes >= MiB ? mb(bytes) : `${Math.floor(bytes / 1024)} KB`);
const gb = (megabytes: number): string => `${(megabytes / 1024).toFixed(1)} GB`;

function limitFinding(limit: WebLlmLimit, have: number, need: number): GpuFinding {
  const show = limit.endsWith('Size') ? bytesText : (n: number) => String(n);
  return {
    code: 'limit-too-small',
    blocking: true,
    limit,
    have,
    need,
    message: `This GPU allows ${limit} of ${show(have)}; WebLLM needs at least ${show(need)}, so no model can load here.`,
  };
}

/** The findings and the fit of each Qwen3 size, from what the navigator said. Pure. */
export function assessGpu(probe: GpuProbe, modelList: readonly ModelListEntry[]): GpuReport {
  const findings: GpuFinding[] = [];
  let shaderF16 = false;
  let adapter: AdapterSummary | null = null;
  switch (probe.kind) {
    case 'no-webgpu':
      findings.push({
        code: 'no-webgpu',
        blocking: true,
        message: 'This browser has no WebGPU, so local models cannot run here. A recent Chrome or Edge on a computer with a GPU can run them.',
      });
      break;
    case 'no-adapter':
      findings.push({
        code: 'no-adapter',
        blocking: true,
        message: 'WebGPU is there but found no usable GPU: it may be turned off in the browser settings, or this GPU or driver is blocked.',
      });
      break;
    case 'adapter-error':
      findings.push({ code: 'adapter-error', blocking: true, message: `Asking the browser for a GPU failed: ${probe.message}` });
      break;
    case 'adapter': {
      adapter = probe.adapter;
      shaderF16 = probe.features.includes('shader-f16');
      for (const limit of LIMIT_NAMES) {
        const need = WEBLLM_MIN_LIMITS[limit];
        if (!(probe.limits[limit] >= need)) findings.push(limitFinding(limit, probe.limits[limit], need));
      }
      if (!shaderF16)
        findings.push({
          code: 'no-shader-f16',
          blocking: false,
          message: 'This GPU has no shader-f16, so the q4f32 builds are used: they need more memory and run somewhat slower.',
        });
      if (probe.adapter.fallback)
        findings.push({
          code: 'software-adapter',
          blocking: false,
          message: 'This is a software GPU that runs on the processor: models will load, but answer very slowly.',
        });
      break;
    }
    default:
      assertNever(probe);
  }
  const blocking = findings.find((f) => f.blocking);
  const models = qwen3Models(modelList, { shaderF16 }).map((model): ModelFit =>
    probe.kind === 'adapter' && !blocking ? fitOf(model, probe) : { model, fit: 'no', reason: blocking?.message ?? '' },
  );
  const canRun = !blocking && models.some((m) => m.fit !== 'no');
  return {
    summary: summarize(models, findings, canRun),
    canRun,
    adapter,
    shaderF16,
    quantization: blocking ? null : quantizationFor(shaderF16),
    findings,
    models,
  };
}

function fitOf(model: Qwen3Model, probe: Extract<GpuProbe, { kind: 'adapter' }>): ModelFit {
  const binding = probe.limits.maxStorageBufferBindingSize;
  if (model.bufferSizeRequiredBytes !== undefined && model.bufferSizeRequiredBytes > binding)
    return { model, fit: 'no', reason: `It needs storage buffers of ${mb(model.bufferSizeRequiredBytes)}; this GPU allows ${mb(binding)}.` };
  const need = model.vramRequiredMB;
  if (need === null) return { model, fit: 'maybe', reason: 'WebLLM does not say how much GPU memory it needs.' };
  const memory = probe.deviceMemoryGB;
  if (memory !== undefined) {
    const haveMB = memory * 1024;
    if (need > haveMB) return { model, fit: 'no', reason: `It needs about ${gb(need)} of GPU memory; this device reports ${memory} GB in all.` };
    if (need > TIGHT_SHARE * haveMB)
      return { model, fit: 'maybe', reason: `It needs about ${gb(need)} of GPU memory, most of the ${memory} GB this device reports.` };
  }
  if (!model.lowResource && binding < SMALL_GPU_STORAGE_BINDING)
    return { model, fit: 'maybe', reason: `It needs about ${gb(need)} of GPU memory, and this GPU's limits look like a small device's.` };
  if (memory === undefined) return { model, fit: 'maybe', reason: `It needs about ${gb(need)} of GPU memory; this browser does not say how much there is.` };
  return { model, fit: 'yes', reason: `It needs about ${gb(need)} of GPU memory, which this device should have.` };
}

function summarize(models: readonly ModelFit[], findings: readonly GpuFinding[], canRun: boolean): string {
  const blocking = findings.find((f) => f.blocking);
  if (blocking) return blocking.message;
  if (!canRun) return 'No Qwen3 model fits in the memory this device reports.';
  const sizes = (fit: Fit) => models.filter((m) => m.fit === fit).map((m) => m.model.size);
  const parts: string[] = [];
  if (sizes('yes').length > 0) parts.push(`Qwen3 ${sizes('yes').join(', ')} should run here.`);
  if (sizes('maybe').length > 0) parts.push(`Qwen3 ${sizes('maybe').join(', ')} may not fit in memory.`);
  if (sizes('no').length > 0) parts.push(`Qwen3 ${sizes('no').join(', ')} will not fit.`);
  for (const f of findings) parts.push(f.message);
  return parts.join(' ');
}
