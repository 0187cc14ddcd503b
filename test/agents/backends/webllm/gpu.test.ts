import { prebuiltAppConfig, type ModelRecord } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import {
  assessGpu,
  checkWebGpu,
  probeWebGpu,
  WEBLLM_MIN_LIMITS,
  type AdapterLike,
  type GpuProbe,
  type GpuReport,
  type NavigatorLike,
} from '../../../../src/agents/backends/webllm/gpu';

const modelList = prebuiltAppConfig.model_list;
const GiB = 2 ** 30;

const GOOD_LIMITS = {
  maxBufferSize: 4 * GiB,
  maxStorageBufferBindingSize: 2 * GiB,
  maxComputeWorkgroupStorageSize: 32768,
  maxStorageBuffersPerShaderStage: 10,
};

/** A fake GPUAdapter: features, limits and info, as a browser would hand them over. */
function adapter(opts: { features?: string[]; limits?: Partial<typeof GOOD_LIMITS>; fallback?: boolean; architecture?: string } = {}): AdapterLike {
  const features = new Set(opts.features ?? ['shader-f16', 'subgroups']);
  return {
    features,
    limits: { ...GOOD_LIMITS, ...opts.limits },
    info: { vendor: 'acme', architecture: opts.architecture ?? 'rdna-3', description: 'Acme GPU', isFallbackAdapter: opts.fallback ?? false },
  };
}

const nav = (a: AdapterLike | null | Error, deviceMemory?: number): NavigatorLike => ({
  gpu: { requestAdapter: async () => (a instanceof Error ? Promise.reject(a) : a) },
  ...(deviceMemory !== undefined && { deviceMemory }),
});

const fits = (report: GpuReport) => Object.fromEntries(report.models.map((m) => [m.model.size, m.fit]));
const codes = (report: GpuReport) => report.findings.map((f) => f.code);

describe('checkWebGpu: what cannot run, and why', () => {
  it('no navigator.gpu: nothing runs, and the report says it is the browser', async () => {
    const report = await checkWebGpu({}, { modelList });
    expect(report).toMatchObject({ canRun: false, adapter: null, shaderF16: false, quantization: null });
    expect(codes(report)).toEqual(['no-webgpu']);
    expect(report.summary).toMatch(/This browser has no WebGPU/);
    expect(report.models).toHaveLength(4);
    expect(report.models.every((m) => m.fit === 'no' && m.reason === report.summary)).toBe(true);
  });

  it('WebGPU without an adapter: nothing runs, and the report says no GPU was found', async () => {
    const report = await checkWebGpu(nav(null, 8), { modelList });
    expect(codes(report)).toEqual(['no-adapter']);
    expect(report.canRun).toBe(false);
    expect(report.summary).toMatch(/found no usable GPU/);
  });

  it('an adapter request that throws is reported with its message, never thrown', async () => {
    const report = await checkWebGpu(nav(new Error('GPU process crashed')), { modelList });
    expect(report.findings).toEqual([{ code: 'adapter-error', blocking: true, message: 'Asking the browser for a GPU failed: GPU process crashed' }]);
    expect(report.canRun).toBe(false);
  });

  it.each([
    ['maxBufferSize', 128 * 2 ** 20, 'This GPU allows maxBufferSize of 128 MB; WebLLM needs at least 256 MB'],
    ['maxStorageBufferBindingSize', 64 * 2 ** 20, 'This GPU allows maxStorageBufferBindingSize of 64 MB; WebLLM needs at least 128 MB'],
    ['maxComputeWorkgroupStorageSize', 16384, 'This GPU allows maxComputeWorkgroupStorageSize of 16 KB; WebLLM needs at least 32 KB'],
    ['maxStorageBuffersPerShaderStage', 8, 'This GPU allows maxStorageBuffersPerShaderStage of 8; WebLLM needs at least 10'],
  ] as const)('a %s below what WebLLM needs blocks every model', async (limit, have, message) => {
    const report = await checkWebGpu(nav(adapter({ limits: { [limit]: have } }), 8), { modelList });
    expect(report.canRun).toBe(false);
    expect(report.quantization).toBeNull();
    expect(report.findings[0]).toMatchObject({ code: 'limit-too-small', blocking: true, limit, have, need: WEBLLM_MIN_LIMITS[limit] });
    expect(report.findings[0]?.message).toContain(message);
    expect(report.models.every((m) => m.fit === 'no')).toBe(true);
  });
});

describe('checkWebGpu: what runs', () => {
  it('a discrete GPU with shader-f16 on an 8 GB device: q4f16 builds, everything but nothing blocking', async () => {
    const report = await checkWebGpu(nav(adapter(), 8), { modelList });
    expect(report).toMatchObject({ canRun: true, shaderF16: true, quantization: 'q4f16_1', findings: [] });
    expect(report.adapter).toEqual({ vendor: 'acme', architecture: 'rdna-3', description: 'Acme GPU', fallback: false });
    expect(report.models.map((m) => m.model.id)).toEqual(['Qwen3-0.6B-q4f16_1-MLC', 'Qwen3-1.7B-q4f16_1-MLC', 'Qwen3-4B-q4f16_1-MLC', 'Qwen3-8B-q4f16_1-MLC']);
    // 8B q4f16 needs 5.7 GB: under three quarters of 8 GB.
    expect(fits(report)).toEqual({ '0.6B': 'yes', '1.7B': 'yes', '4B': 'yes', '8B': 'yes' });
    expect(report.summary).toBe('Qwen3 0.6B, 1.7B, 4B, 8B should run here.');
  });

  it('no shader-f16: the q4f32 builds, said plainly, and the larger need makes 8B tight on 8 GB', async () => {
    const report = await checkWebGpu(nav(adapter({ features: ['subgroups'] }), 8), { modelList });
    expect(report).toMatchObject({ canRun: true, shaderF16: false, quantization: 'q4f32_1' });
    expect(codes(report)).toEqual(['no-shader-f16']);
    expect(report.models.every((m) => m.model.quantization === 'q4f32_1')).toBe(true);
    expect(fits(report)).toEqual({ '0.6B': 'yes', '1.7B': 'yes', '4B': 'yes', '8B': 'maybe' });
    expect(report.models[3]?.reason).toBe('It needs about 6.7 GB of GPU memory, most of the 8 GB this device reports.');
    expect(report.summary).toMatch(/^Qwen3 0\.6B, 1\.7B, 4B should run here\. Qwen3 8B may not fit in memory\. This GPU has no shader-f16/);
  });

  it('a 4 GB device: the models that need more than that will not fit', async () => {
    const report = await checkWebGpu(nav(adapter(), 4), { modelList });
    // 0.6B 1.4 GB, 1.7B 2.0 GB, 4B 3.4 GB (over 3 GB), 8B 5.7 GB (over 4 GB)
    expect(fits(report)).toEqual({ '0.6B': 'yes', '1.7B': 'yes', '4B': 'maybe', '8B': 'no' });
    expect(report.models[3]?.reason).toBe('It needs about 5.6 GB of GPU memory; this device reports 4 GB in all.');
    expect(report.summary).toBe('Qwen3 0.6B, 1.7B should run here. Qwen3 4B may not fit in memory. Qwen3 8B will not fit.');
  });

  it('a 1 GB device: nothing fits, and the report says so', async () => {
    const report = await checkWebGpu(nav(adapter(), 1), { modelList });
    expect(report.canRun).toBe(false);
    expect(report.quantization).toBe('q4f16_1');
    expect(report.summary).toBe('No Qwen3 model fits in the memory this device reports.');
  });

  it('a browser that does not report its memory: every size is a maybe, with the need named', async () => {
    const report = await checkWebGpu(nav(adapter()), { modelList });
    expect(report.canRun).toBe(true);
    expect(fits(report)).toEqual({ '0.6B': 'maybe', '1.7B': 'maybe', '4B': 'maybe', '8B': 'maybe' });
    expect(report.models[0]?.reason).toBe('It needs about 1.4 GB of GPU memory; this browser does not say how much there is.');
  });

  it('a phone-class GPU (storage buffers under 1 GiB): the model WebLLM does not mark low-resource is a maybe', async () => {
    const report = await checkWebGpu(nav(adapter({ limits: { maxStorageBufferBindingSize: 128 * 2 ** 20 } }), 8), { modelList });
    expect(fits(report)).toEqual({ '0.6B': 'yes', '1.7B': 'yes', '4B': 'yes', '8B': 'maybe' });
    expect(report.models[3]?.reason).toMatch(/limits look like a small device's/);
  });

  it('a software adapter (SwiftShader) runs, with a warning that it is slow', async () => {
    for (const a of [adapter({ fallback: true }), adapter({ architecture: 'swiftshader' })]) {
      const report = await checkWebGpu(nav(a, 8), { modelList });
      expect(report.adapter?.fallback).toBe(true);
      expect(codes(report)).toEqual(['software-adapter']);
      expect(report.canRun).toBe(true);
      expect(report.summary).toMatch(/software GPU that runs on the processor/);
    }
  });
});

describe('assessGpu and probeWebGpu, apart', () => {
  const probe = (extra: Partial<Extract<GpuProbe, { kind: 'adapter' }>> = {}): GpuProbe => ({
    kind: 'adapter',
    features: ['shader-f16'],
    limits: GOOD_LIMITS,
    adapter: { vendor: '', architecture: '', description: '', fallback: false },
    deviceMemoryGB: 8,
    ...extra,
  });

  it('a model needing larger storage buffers than the adapter allows will not fit', () => {
    const list: ModelRecord[] = [
      {
        model: 'm',
        model_id: 'Qwen3-0.6B-q4f16_1-MLC',
        model_lib: 'l',
        vram_required_MB: 1000,
        low_resource_required: true,
        buffer_size_required_bytes: 3 * GiB,
      },
    ];
    const report = assessGpu(probe(), list);
    expect(report.models[0]).toMatchObject({ fit: 'no', reason: 'It needs storage buffers of 3072 MB; this GPU allows 2048 MB.' });
  });

  it('a model with no memory need in the list is a maybe', () => {
    const list: ModelRecord[] = [{ model: 'm', model_id: 'Qwen3-4B-q4f16_1-MLC', model_lib: 'l' }];
    expect(assessGpu(probe(), list).models[0]).toMatchObject({ fit: 'maybe', reason: 'WebLLM does not say how much GPU memory it needs.' });
  });

  it('an empty model list offers nothing, and cannot run', () => {
    expect(assessGpu(probe(), [])).toMatchObject({ canRun: false, models: [] });
  });

  it('probeWebGpu reads features, the four limits, the adapter info and deviceMemory, as WebLLM asks (high-performance)', async () => {
    let asked: GPURequestAdapterOptions | undefined;
    const result = await probeWebGpu({
      gpu: {
        requestAdapter: async (options) => {
          asked = options;
          return adapter({ features: ['subgroups'] });
        },
      },
      deviceMemory: 16,
    });
    expect(asked).toEqual({ powerPreference: 'high-performance' });
    expect(result).toEqual({
      kind: 'adapter',
      features: ['subgroups'],
      limits: GOOD_LIMITS,
      adapter: { vendor: 'acme', architecture: 'rdna-3', description: 'Acme GPU', fallback: false },
      deviceMemoryGB: 16,
    });
  });

  it('probeWebGpu tolerates an adapter with no info and missing limits', async () => {
    const result = await probeWebGpu({ gpu: { requestAdapter: async () => ({ features: new Set<string>(), limits: {} }) } });
    expect(result).toMatchObject({ kind: 'adapter', limits: { maxBufferSize: 0 }, adapter: { vendor: '', fallback: false } });
    expect(result).not.toHaveProperty('deviceMemoryGB');
    expect(assessGpu(result, modelList).canRun).toBe(false);
  });
});
