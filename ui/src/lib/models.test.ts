import { describe, expect, it } from 'vitest';
import { CUSTOM_FILE, FILE_IN_USE, fileName, pickerGroups, pickerValue } from './models';
import type { FamilyView } from './bindings';

const families: FamilyView[] = [
  { id: 'o200k_base', group: 'OpenAI', exact: true, models: ['gpt-4o', 'gpt-4.1'] },
  { id: 'cl100k_base', group: 'OpenAI', exact: true, models: ['gpt-4'] },
  { id: 'llama-3', group: 'Llama 3.x', exact: true, models: ['llama-3.1-8b'] },
  { id: 'gemma-3', group: 'Gemma 2 / 3', exact: true, models: ['gemma-3'] },
  { id: 'gemini', group: 'Gemma 2 / 3', exact: false, models: ['gemini'] },
  { id: 'claude', group: 'Claude', exact: false, models: ['claude'] },
];

describe('model picker', () => {
  it('groups the families by their group, in the engine order, with the approximate mark', () => {
    const groups = pickerGroups(families, { model: 'gpt-4o', file: null, approximate: false });
    expect(groups.map((g) => g.label)).toEqual(['OpenAI', 'Llama 3.x', 'Gemma 2 / 3', 'Claude']);
    expect(groups[0].options.map((o) => o.value)).toEqual(['gpt-4o', 'gpt-4.1', 'gpt-4']);
    expect(groups[2].options).toEqual([
      { value: 'gemma-3', name: 'gemma-3', approximate: false },
      { value: 'gemini', name: 'gemini', approximate: true },
    ]);
    expect(groups[3].options[0].approximate).toBe(true);
    expect(groups.flatMap((g) => g.options).some((o) => o.value === CUSTOM_FILE)).toBe(false);
  });

  it('shows a model no group lists first, with its mark', () => {
    const groups = pickerGroups(families, { model: 'claude-3-opus', file: null, approximate: true });
    expect(groups[0]).toEqual({ label: null, options: [{ value: 'claude-3-opus', name: 'claude-3-opus', approximate: true }] });
    expect(groups).toHaveLength(5);
    // A listed model is not repeated.
    expect(pickerGroups(families, { model: 'gemini', file: null, approximate: true })).toHaveLength(4);
  });

  it('shows the user file by name while it counts, and selects it', () => {
    const current = { model: 'gpt-4o', file: '/home/a/models/tokenizer.json', approximate: false };
    const groups = pickerGroups(families, current);
    expect(groups[0].options).toEqual([{ value: FILE_IN_USE, name: 'tokenizer.json', approximate: false }]);
    expect(pickerValue(current)).toBe(FILE_IN_USE);
    expect(pickerValue({ model: 'gpt-4', file: null })).toBe('gpt-4');
    expect(fileName('C:\\tok\\qwen.model')).toBe('qwen.model');
  });

  it('has nothing to show before the catalog arrives', () => {
    expect(pickerGroups([], null)).toEqual([]);
  });
});
