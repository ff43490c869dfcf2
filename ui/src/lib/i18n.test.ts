import { describe, expect, it } from 'vitest';
import { catalogs, dialogLabels, format, menuLabels, pickLocale } from './i18n';

describe('message catalog', () => {
  it('has every key translated in both languages', () => {
    const en = Object.keys(catalogs.en).sort();
    expect(Object.keys(catalogs['pt-BR']).sort()).toEqual(en);
    for (const locale of ['en', 'pt-BR'] as const) {
      for (const [k, v] of Object.entries(catalogs[locale])) expect(v.trim(), `${locale} ${k}`).not.toBe('');
    }
  });

  it('keeps the same placeholders in both languages', () => {
    const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const [k, v] of Object.entries(catalogs.en)) {
      expect(names(catalogs['pt-BR'][k as keyof typeof catalogs.en]), k).toEqual(names(v));
    }
  });

  it('formats and follows the system locale', () => {
    expect(format('en', 'preview.budget', { used: 5, limit: 800 })).toBe('Budget: 5 / 800 tokens');
    expect(format('pt-BR', 'preview.budget', { used: 5, limit: 800 })).toBe('Orçamento: 5 / 800 tokens');
    expect(pickLocale('pt-BR')).toBe('pt-BR');
    expect(pickLocale('pt-PT')).toBe('pt-BR');
    expect(pickLocale('en-US')).toBe('en');
    expect(pickLocale(undefined)).toBe('en');
  });

  it('labels every native menu item in both languages', () => {
    // The ids of src-tauri/src/menu.rs.
    const ids = ['menu_file', 'menu_edit', 'menu_preview', 'menu_help', 'about', 'new_book', 'open', 'save', 'save_as', 'open_folder', 'save_as_folder', 'connect_sillytavern', 'import', 'merge', 'export',
      'open_chat', 'close_book', 'quit', 'undo', 'redo', 'find', 'new_entry', 'duplicate_entry', 'next_entry',
      'previous_entry', 'reroll', 'ai_assistant', 'toggle_theme', 'user_guide', 'shortcuts', 'cut', 'copy', 'paste', 'select_all'];
    expect(Object.keys(menuLabels('en')).sort()).toEqual([...ids].sort());
    expect(menuLabels('pt-BR').save_as).toBe('Salvar como…');
    expect(menuLabels('pt-BR').select_all).toBe('Selecionar tudo');
  });

  it('words the native file dialogs in both languages', () => {
    // The keys of src-tauri/src/dialogs.rs, whose tests check them too.
    const en = dialogLabels('en');
    const pt = dialogLabels('pt-BR');
    expect(Object.keys(pt).sort()).toEqual(Object.keys(en).sort());
    expect(Object.keys(en).every((k) => k.startsWith('dialog.'))).toBe(true);
    expect(en['dialog.open']).toBe('Open lorebook');
    expect(pt['dialog.open']).toBe('Abrir livro');
    for (const k of Object.keys(en)) expect(pt[k], k).not.toBe(en[k]);
  });

  it('picks plural forms by Intl.PluralRules in both languages', () => {
    expect(format('en', 'badge.diagnostics', { n: 1 })).toBe('1 issue');
    expect(format('en', 'badge.diagnostics', { n: 0 })).toBe('0 issues');
    expect(format('en', 'badge.diagnostics', { n: 3 })).toBe('3 issues');
    expect(format('en', 'list.count', { shown: 2, n: 1 })).toBe('2 of 1 entry');
    // pt-BR counts 0 and 1 as singular, and has a `many` form for
    // millions that reads as the plural.
    expect(format('pt-BR', 'badge.diagnostics', { n: 0 })).toBe('0 problema');
    expect(format('pt-BR', 'preview.passes', { n: 2 })).toBe('2 passadas recursivas');
    expect(format('pt-BR', 'confirm.delete', { n: 1000000 })).toBe('Excluir 1.000.000 entradas?');
    // The final prompt panels' summaries.
    expect(format('en', 'risuPrompt.summary', { n: 1 })).toBe('1 message');
    expect(format('en', 'risuPrompt.summary', { n: 4 })).toBe('4 messages');
    expect(format('en', 'stPrompt.summary', { n: 1, tokens: '12' })).toBe('1 message · 12 tokens');
    expect(format('pt-BR', 'stPrompt.summary', { n: 1, tokens: '12' })).toBe('1 mensagem · 12 tokens');
  });

  it('writes numbers in the locale and leaves string params verbatim', () => {
    expect(format('en', 'preview.budget', { used: 2048, limit: 32000 })).toBe('Budget: 2,048 / 32,000 tokens');
    expect(format('pt-BR', 'preview.budget', { used: 2048, limit: 32000 })).toBe('Orçamento: 2.048 / 32.000 tokens');
    expect(format('pt-BR', 'entry.id', { id: '1234567' })).toBe('Entrada id 1234567');
  });

  it('spells every plural out instead of "(s)"', () => {
    for (const locale of ['en', 'pt-BR'] as const) {
      for (const [k, v] of Object.entries(catalogs[locale])) expect(v, `${locale} ${k}`).not.toMatch(/\((s|es)\)/);
    }
    const forms = Object.keys(catalogs.en).filter((k) => /\.(zero|one|two|few|many)$/.test(k));
    for (const form of forms) expect(catalogs.en, form).toHaveProperty([form.replace(/\.\w+$/, '.other')]);
  });
});
