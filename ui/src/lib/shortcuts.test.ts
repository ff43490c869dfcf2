import { describe, expect, it } from 'vitest';
import { ACTIONS } from './bindings';
import { menuLabels } from './i18n';
import { shortcuts, tip } from './shortcuts';

describe('shortcuts', () => {
  it('shows the accelerator the native menu binds', () => {
    expect(tip('Save', 'save')).toBe('Save (Ctrl+S)');
    expect(shortcuts.next_entry).toBe('Alt+Down');
  });

  it('shows the label alone for an action without a shortcut', () => {
    expect(shortcuts.about).toBe('');
    expect(tip('About', 'about')).toBe('About');
  });

  it('labels every action of the table in both languages', () => {
    for (const locale of ['en', 'pt-BR'] as const) {
      const labels = menuLabels(locale);
      for (const a of ACTIONS) expect(labels[a.id], `${locale} ${a.id}`).toBeTruthy();
    }
  });
});
