/**
 * The seat picker with language models, in Chromium: this GPU's Qwen3 builds (headless
 * Chromium's SwiftShader adapter has no shader-f16, so q4f32), remote models typed as
 * PROVIDER:MODEL, and "think before answering" written as `+think`.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { flushSync } from 'svelte';
import { userEvent } from 'vitest/browser';
import AgentChoice from '../../src/ui/components/AgentChoice.svelte';
import { parseAgentSpec } from '../../src/games/bilateral/specs';
import { localEngines } from '../../src/ui/state/engines.svelte';
import { bound, cleanup, control, reactive, render } from './helpers.svelte';

afterEach(cleanup);

const localOptions = (target: HTMLElement) =>
  [...target.querySelectorAll<HTMLOptionElement>('optgroup[label="On this GPU (WebLLM)"] option')].map((o) => o.value);

describe('AgentChoice', () => {
  test('offers the q4f32 Qwen3 builds on a GPU without shader-f16, and writes +think when asked', async () => {
    const { props, get } = bound('spec', 'boulware', { label: 'Buyer' });
    const target = render(AgentChoice, props);
    await expect
      .poll(() => localOptions(target))
      .toEqual(['webllm:Qwen3-0.6B-q4f32_1-MLC', 'webllm:Qwen3-1.7B-q4f32_1-MLC', 'webllm:Qwen3-4B-q4f32_1-MLC', 'webllm:Qwen3-8B-q4f32_1-MLC']);
    expect(localEngines.quantization).toBe('q4f32_1');
    for (const value of localOptions(target)) expect(parseAgentSpec(value).ok).toBe(true);
    await userEvent.selectOptions(control<HTMLSelectElement>(target, 'Agent'), 'webllm:Qwen3-1.7B-q4f32_1-MLC');
    expect(get()).toBe('webllm:Qwen3-1.7B-q4f32_1-MLC');
    expect(target.textContent).toContain('Runs on this device’s GPU with WebLLM');
    const think = target.querySelector<HTMLInputElement>('input[type="checkbox"]');
    await userEvent.click(think as HTMLInputElement);
    expect(get()).toBe('webllm:Qwen3-1.7B-q4f32_1-MLC+think');
    await userEvent.click(think as HTMLInputElement);
    expect(get()).toBe('webllm:Qwen3-1.7B-q4f32_1-MLC');
  });

  test('a remote model typed as PROVIDER:MODEL can think too; a bad one is explained and never written', async () => {
    const { props, get } = bound('spec', 'linear', { label: 'Seller' });
    const target = render(AgentChoice, props);
    await userEvent.selectOptions(control<HTMLSelectElement>(target, 'Agent'), 'remote model…');
    const input = control<HTMLInputElement>(target, 'Remote model');
    await userEvent.type(input, 'nowhere:x');
    expect(target.textContent).toContain('Type a provider and a model');
    expect(parseAgentSpec(get()).ok).toBe(false);
    await userEvent.clear(input);
    await userEvent.type(input, 'ollama:qwen3:8b');
    await userEvent.click(target.querySelector<HTMLInputElement>('input[type="checkbox"]') as HTMLInputElement);
    expect(get()).toBe('ollama:qwen3:8b+think');
  });

  test("a remote seat's Spec line shows the typed spec, not the picker's placeholder value", async () => {
    const { props, get } = bound('spec', 'linear', { label: 'Seller' });
    const target = render(AgentChoice, props);
    const spec = () => (target.querySelector('.spec')?.textContent ?? '').replace(/\s+/g, ' ').trim();
    await userEvent.selectOptions(control<HTMLSelectElement>(target, 'Agent'), 'remote model…');
    expect(spec()).toBe('Spec: –');
    await userEvent.type(control<HTMLInputElement>(target, 'Remote model'), 'openai:gpt-4o-mini');
    expect(spec()).toBe('Spec: openai:gpt-4o-mini');
    await userEvent.click(target.querySelector<HTMLInputElement>('input[type="checkbox"]') as HTMLInputElement);
    expect(get()).toBe('openai:gpt-4o-mini+think');
    expect(spec()).toBe('Spec: openai:gpt-4o-mini+think');
    expect(spec()).not.toContain('remote model…');
  });

  test("the chosen option's text fits its box in a seat a third of a 1280 px page wide", async () => {
    const { props } = bound('spec', 'linear', { label: 'Seller' });
    const box = document.createElement('div');
    box.style.width = '390px';
    document.body.append(box);
    const target = render(AgentChoice, props);
    box.append(target);
    const select = control<HTMLSelectElement>(target, 'Agent');
    await userEvent.selectOptions(select, 'remote model…');
    const label = select.selectedOptions[0]!.textContent ?? '';
    expect(label).toBe('Remote model (PROVIDER:MODEL)…');
    const probe = document.createElement('span');
    probe.style.font = getComputedStyle(select).font;
    probe.style.whiteSpace = 'pre';
    probe.textContent = label;
    document.body.append(probe);
    // Room for the text beside the padding and the drop-down arrow.
    expect(probe.getBoundingClientRect().width).toBeLessThan(select.clientWidth - 32);
    probe.remove();
    box.remove();
  });

  test('adopts a spec set from outside, even a build this GPU would not pick', async () => {
    const props = reactive({ label: 'Buyer', spec: 'boulware' });
    const target = render(AgentChoice, props);
    props.spec = 'webllm:Qwen3-8B-q4f16_1-MLC+think';
    flushSync();
    await expect.poll(() => control<HTMLSelectElement>(target, 'Agent').value).toBe('webllm:Qwen3-8B-q4f16_1-MLC');
    expect(target.querySelector<HTMLInputElement>('input[type="checkbox"]')?.checked).toBe(true);
    expect(props.spec).toBe('webllm:Qwen3-8B-q4f16_1-MLC+think');
  });

  test('offers remote models that answered a connection test by name, and adopts one with +think', async () => {
    const { props, get } = bound('spec', 'boulware', { label: 'Buyer', remoteModels: ['vllm:Qwen/Qwen3-8B', 'openai:gpt-4o-mini'] });
    const target = render(AgentChoice, props);
    const remote = [...target.querySelectorAll<HTMLOptionElement>('optgroup[label="Remote models"] option')].map((o) => o.textContent);
    expect(remote).toEqual(['vllm:Qwen/Qwen3-8B', 'openai:gpt-4o-mini', 'Another remote model…']);
    await userEvent.selectOptions(control<HTMLSelectElement>(target, 'Agent'), 'openai:gpt-4o-mini');
    expect(get()).toBe('openai:gpt-4o-mini');
    expect(() => control(target, 'Remote model')).toThrow();
    await userEvent.click(target.querySelector<HTMLInputElement>('input[type="checkbox"]') as HTMLInputElement);
    expect(get()).toBe('openai:gpt-4o-mini+think');

    const outside = reactive({ label: 'Seller', spec: 'vllm:Qwen/Qwen3-8B+think', remoteModels: ['vllm:Qwen/Qwen3-8B'] });
    const other = render(AgentChoice, outside);
    await expect.poll(() => control<HTMLSelectElement>(other, 'Agent').value).toBe('vllm:Qwen/Qwen3-8B');
    expect(other.querySelector<HTMLInputElement>('input[type="checkbox"]')?.checked).toBe(true);
  });
});
