import { describe, expect, it } from 'vitest';
import { catalogs, format, type Locale, type MessageKey } from './i18n';
import { NOTE_CODES, type Finding } from './bindings';
import {
  chatErrorText,
  chatWarningText,
  codeKeys,
  diagnosticText,
  errorText,
  findingText,
  fixText,
  lintKeys,
  exportReasons,
  gateText,
  roleText,
  risuDropKind,
  risuDropText,
  risuKeys,
  risuPositionText,
  risuWhyText,
  settingDroppedText,
  stAbsentText,
  stBlockText,
  noteText,
  stBudgetText,
  stDetailText,
  stExplainKeys,
  stReasonText,
  macroDecisionText,
  stSourceText,
  stKeys,
  risuPromptKeys,
  risuSourceText,
  stPositionText,
  stRuleText,
  type Translate,
} from './messages';

const t = (locale: Locale): Translate => (key, params = {}) => format(locale, key, params);

describe('engine codes', () => {
  it('has a message for every code in both languages', () => {
    expect(codeKeys.length).toBeGreaterThan(0);
    for (const locale of ['en', 'pt-BR'] as const) {
      for (const key of codeKeys) expect(catalogs[locale][key]?.trim(), `${locale} ${key}`).toBeTruthy();
    }
  });

  it('words diagnostics with their parameters', () => {
    const bad = {
      code: 'bad_argument',
      decorator: 'probability',
      problem: { code: 'out_of_range', value: 500, min: 0, max: 100 },
    } as const;
    expect(diagnosticText(t('en'), bad)).toBe('@@probability: 500 is outside 0–100');
    expect(diagnosticText(t('pt-BR'), bad)).toBe('@@probability: 500 está fora de 0–100');
    expect(diagnosticText(t('en'), { code: 'unknown_decorator', name: 'depth' })).toBe(
      'unknown decorator @@depth; kept in the content, no effect',
    );
    const regex = { code: 'invalid_regex', key: '/(a/', secondary: true, error: 'unclosed group' } as const;
    expect(diagnosticText(t('en'), regex)).toBe('secondary key "/(a/" is an invalid regex: unclosed group');
    expect(diagnosticText(t('pt-BR'), regex)).toBe('chave secundária "/(a/" é uma regex inválida: unclosed group');
    const big = { code: 'regex_too_large', key: `/${'a|'.repeat(40)}/`, secondary: false, limit: 'alternatives', max: 2000 } as const;
    expect(diagnosticText(t('en'), big)).toBe(
      `key "/${'a|'.repeat(29)}a…" is past the regex size limit (2,000 alternatives (|)); it never matches`,
    );
  });

  it('words gate details in the UI language, without English in Portuguese', () => {
    const detail = { code: 'already_matched', request: 2 } as const;
    expect(gateText(t('en'), detail)).toBe('already matched in request 2');
    expect(gateText(t('pt-BR'), detail)).toBe('já casou na requisição 2');
    expect(gateText(t('pt-BR'), { code: 'too_few_messages', needed: 4, has: 1 })).toBe(
      'precisa de 4 mensagens no histórico; há 1',
    );
  });

  it('words chat problems and warnings in the UI language', () => {
    const role = { line: null, problem: { code: 'unknown_role', index: 2, role: 'narrator' } } as const;
    expect(chatErrorText(t('en'), role)).toBe('The chat cannot be read: message 2 has an unknown role "narrator"');
    expect(chatErrorText(t('pt-BR'), role)).toBe('Não foi possível ler a conversa: a mensagem 2 tem um papel desconhecido, "narrator"');
    const json = { line: 3, problem: { code: 'not_messages' } } as const;
    expect(chatErrorText(t('en'), json)).toBe('The chat cannot be read (line 3): expected an array of messages or {"messages": [...]}');
    expect(chatWarningText(t('pt-BR'), { code: 'not_a_message', line: 4 })).toBe('linha 4: não é uma mensagem (sem "mes"), ignorada');
    const many = { line: null, problem: { code: 'too_many_values', limit: 8000000 } } as const;
    expect(chatErrorText(t('pt-BR'), many)).toContain('mais de 8.000.000 valores');
  });
});

describe('report notes', () => {
  it('has a message for every note code in both languages', () => {
    const codes = [...NOTE_CODES];
    expect(new Set(codes).size).toBe(codes.length);
    for (const locale of ['en', 'pt-BR'] as const) {
      for (const c of [...codes, 'read_from_chunk_no_spec', 'on', 'off']) {
        expect(catalogs[locale][`note.${c}` as MessageKey]?.trim(), `${locale} note.${c}`).toBeTruthy();
      }
    }
  });

  it('words a note in the UI language, with its parameters', () => {
    const whole = { code: 'whole_words_global' } as const;
    expect(noteText(t('en'), whole)).toBe("unset (SillyTavern's global setting applies); read as whole words on, its default");
    expect(noteText(t('pt-BR'), whole)).toBe(
      'não definido (vale a configuração global do SillyTavern); lido como palavras inteiras ligado, o padrão dele',
    );
    const ids = { code: 'uid_used_twice', old: 1200, new: 3400 } as const;
    expect(noteText(t('en'), ids)).toBe('uid 1200 is used twice; given id 3400');
    expect(noteText(t('pt-BR'), ids)).toBe('o uid 1200 aparece duas vezes; recebeu o id 3400');
    const bool = { code: 'not_bool', value: '"yes"', read: true } as const;
    expect(noteText(t('pt-BR'), bool)).toBe('"yes" não é true/false; lido como ligado');
    expect(noteText(t('en'), { code: 'read_from_chunk', chunk: 'ccv3', spec: null })).toBe('book read from the "ccv3" chunk (no spec)');
    expect(noteText(t('pt-BR'), { code: 'read_from_chunk', chunk: 'ccv3', spec: 'chara_card_v3' })).toBe(
      'livro lido do bloco "ccv3" (chara_card_v3)',
    );
    const clamp = { code: 'clamped', field: 'token_budget', value: 50000, min: 100, max: 32000, clamped: 32000 } as const;
    expect(noteText(t('pt-BR'), clamp)).toBe('token_budget 50.000 está fora de 100–32.000; ajustado para 32.000');
  });
});

describe('app errors', () => {
  it('words every kind of code, with its setting, id or file in the UI language', () => {
    const gone = { message: 'x', code: { code: 'changed_on_disk', file: '/d/b.json', gone: true } } as const;
    expect(errorText(t('en'), gone)).toBe('b.json was moved or deleted since it was opened or last saved');
    const edited = { message: 'x', code: { code: 'changed_on_disk', file: '/d/b.json', gone: false } } as const;
    expect(errorText(t('pt-BR'), edited)).toBe('b.json foi alterado por outro programa desde que foi aberto ou salvo');
    const depth = { message: 'x', code: { code: 'book_setting_out_of_range', setting: 'scan_depth', min: 1, max: 100 } } as const;
    expect(errorText(t('pt-BR'), depth)).toBe('Profundidade de varredura deve estar entre 1 e 100');
    const note = { message: 'x', code: { code: 'note_number_out_of_range', setting: 'authors_note_interval', max: 10000 } } as const;
    expect(errorText(t('en'), note)).toBe('The Author’s Note frequency must be a whole number from 0 to 10,000');
    const entry = { message: 'x', code: { code: 'entry_not_found', id: 12345 } } as const;
    expect(errorText(t('en'), entry)).toBe('entry 12345 is no longer in this book');
    const tok = { message: 'x', code: { code: 'bad_tokenizer_file', file: '/t/tokenizer.json', detail: 'not JSON' } } as const;
    expect(errorText(t('pt-BR'), tok)).toBe('tokenizer.json não pode ser usado como tokenizador: not JSON');
  });

  it('words the errors a user meets in the UI language, naming the file by its name', () => {
    const missing = { message: 'cannot read /d/b.json: No such file', code: { code: 'file_not_found', file: '/d/b.json' } } as const;
    expect(errorText(t('en'), missing)).toBe('b.json: no such file or folder');
    expect(errorText(t('pt-BR'), missing)).toBe('b.json: arquivo ou pasta inexistente');
    const full = { message: 'x', code: { code: 'disk_full', file: '/d/b.json' } } as const;
    expect(errorText(t('pt-BR'), full)).toBe('b.json: o disco está cheio');
    const big = { message: 'x', code: { code: 'too_large', file: '/d/b.json', limit: 268435456 } } as const;
    expect(errorText(t('pt-BR'), big)).toBe('b.json tem mais de 256 MB; arquivos assim são recusados');
    const notBook = {
      message: 'x',
      code: { code: 'not_a_book', file: '/d/b.json', reason: 'unknown_format', detail: 'not a lorebook this app can read' },
    } as const;
    expect(errorText(t('pt-BR'), notBook)).toMatch(/^b\.json: não é um lorebook que este app lê/);
    const field = { message: 'x', code: { code: 'not_a_book', file: 'b.json', reason: 'bad_field', detail: 'entries[2].keys: must be an array' } } as const;
    expect(errorText(t('pt-BR'), field)).toBe('b.json: um campo tem um valor errado (entries[2].keys: must be an array)');
    expect(errorText(t('pt-BR'), { message: 'English fallback', code: null })).toBe('English fallback');
  });

  it('words every export failure in both languages', () => {
    const noCard = { message: 'x', code: { code: 'cannot_export', file: '/d/card.png', reason: 'png_without_card', detail: 'x' } } as const;
    expect(errorText(t('en'), noCard)).toBe(
      'cannot export to card.png: this PNG is not a character card (it has no "chara" or "ccv3" chunk to write the book into)',
    );
    expect(errorText(t('pt-BR'), noCard)).toMatch(/^não foi possível exportar para card\.png: este PNG não é um cartão/);
    const damaged = { message: 'x', code: { code: 'cannot_export', file: '/d/card.png', reason: 'bad_png', detail: 'bad CRC' } } as const;
    expect(errorText(t('pt-BR'), damaged)).toBe('não foi possível exportar para card.png: o PNG está danificado (bad CRC)');
    const noFile = { message: 'x', code: { code: 'cannot_export', file: '', reason: 'no_writer', detail: 'no writer for risu' } } as const;
    expect(errorText(t('pt-BR'), noFile)).toBe('o livro não pode ser exportado: este formato não pode ser gravado (no writer for risu)');
    for (const r of exportReasons) {
      const e = { message: 'x', code: { code: 'cannot_export', file: '/d/x.png', reason: r, detail: 'd' } } as const;
      expect(errorText(t('pt-BR'), e), r).not.toBe(errorText(t('en'), e));
    }
    const bug = { message: 'x', code: { code: 'internal', command: 'save', detail: 'oops' } } as const;
    expect(errorText(t('pt-BR'), bug)).toMatch(/^erro interno em save \(oops\); suas alterações não salvas foram mantidas/);
  });
});

describe("RisuAI's final prompt", () => {
  it('names every slot and entry in both languages', () => {
    expect(new Set(risuPromptKeys).size).toBe(risuPromptKeys.length);
    for (const locale of ['en', 'pt-BR'] as const) {
      for (const key of risuPromptKeys) expect(catalogs[locale][key]?.trim(), `${locale} ${key}`).toBeTruthy();
    }
    const en = t('en');
    const name = (book: number, id: number) => `E${book}.${id}`;
    expect(risuSourceText(en, { kind: 'chat', index: 2 }, name)).toBe('message 3');
    expect(risuSourceText(en, { kind: 'entry', book: 0, id: 7 }, name)).toBe('E0.7 (entry)');
    expect(risuSourceText(en, { kind: 'global_note' }, name)).toBe('global note');
  });
});

describe("SillyTavern's rules", () => {
  it('has a message for every position and rule in both languages', () => {
    // The lists are records the compiler checks against the engine's
    // generated types (bindings.ts), so no count is pinned here.
    expect(new Set(stKeys).size).toBe(stKeys.length);
    for (const locale of ['en', 'pt-BR'] as const) {
      for (const key of stKeys) expect(catalogs[locale][key]?.trim(), `${locale} ${key}`).toBeTruthy();
    }
  });

  it('words a position with its depth and role or its outlet', () => {
    const at = { position: 'at_depth', depth: 2, role: 'assistant', outlet: null } as const;
    expect(stPositionText(t('en'), at)).toBe('at depth 2 as assistant');
    expect(stPositionText(t('pt-BR'), at)).toBe('na profundidade 2 como assistente');
    expect(stPositionText(t('en'), { position: 'outlet', depth: null, role: null, outlet: 'map' })).toBe('outlet "map"');
    expect(stPositionText(t('en'), { position: 'an_top', depth: null, role: null, outlet: null })).toBe("top of Author's Note");
  });

  it('words the rule that dropped an entry', () => {
    expect(stRuleText(t('en'), 'group')).toBe('inclusion group');
    expect(stRuleText(t('pt-BR'), 'cooldown')).toBe('recarga');
  });

  it("words the final prompt's blocks, sources and absences", () => {
    expect(stBlockText(t('en'), 'worldInfoBefore')).toBe('world info (before)');
    expect(stBlockText(t('pt-BR'), 'chatHistory')).toBe('histórico do chat');
    const name = (book: number, id: number) => `e${book}.${id}`;
    const entry = { kind: 'entry', book: 0, id: 3, position: 'at_depth' } as const;
    expect(stSourceText(t('en'), entry, name)).toBe('e0.3 (at depth)');
    expect(stSourceText(t('pt-BR'), { kind: 'chat', index: 1 }, name)).toBe('mensagem 2');
    expect(stSourceText(t('en'), { kind: 'authors_note' }, name)).toBe("Author's Note");
    expect(stAbsentText(t('en'), 'outlet_unused')).toBe('an outlet appears only where a prompt uses {{outlet::name}}');
    expect(stAbsentText(t('pt-BR'), 'note_not_due')).toBe('a Nota do Autor não é inserida nesta requisição (seu intervalo)');
  });

  it('has a message for every explanation code in both languages', () => {
    expect(new Set(stExplainKeys).size).toBe(stExplainKeys.length);
    for (const locale of ['en', 'pt-BR'] as const) {
      for (const key of stExplainKeys) expect(catalogs[locale][key as MessageKey]?.trim(), `${locale} ${key}`).toBeTruthy();
    }
  });

  it('words why an entry is in or out, with its parameters, in each language', () => {
    const lost = {
      code: 'group',
      group: 'weather',
      loss: { code: 'lost_roll', roll: 42.5, total: 200, weight: 100, winner: 0, winner_name: 'Fog (calm)' },
    } as const;
    expect(stDetailText(t('en'), lost)).toBe("group 'weather': lost the roll to Fog (calm) (rolled 42.5 of total weight 200; its weight 100)");
    expect(stDetailText(t('pt-BR'), lost)).toBe("grupo 'weather': perdeu o sorteio para Fog (calm) (tirou 42,5 do peso total 200; seu peso 100)");
    const unnamed = { ...lost, loss: { code: 'prioritized', winner: 7, winner_name: ' ' } } as const;
    expect(stDetailText(t('en'), unnamed)).toBe("group 'weather': #7 won: prioritized with a higher order");
    expect(stDetailText(t('en'), { code: 'cooldown', left: 2 })).toBe('cooldown: 2 messages left');
    expect(stDetailText(t('en'), { code: 'cooldown', left: 1 })).toBe('cooldown: 1 message left');
    expect(stDetailText(t('pt-BR'), { code: 'cooldown', left: 2 })).toBe('recarga: faltam 2 mensagens');
    const budget = { code: 'budget', total: 2100, budget: 2048, percent: 25, context: 8192, cap: 0 } as const;
    expect(stDetailText(t('en'), budget)).toBe('budget: 2,100 tokens would reach the budget of 2,048 (25% of 8,192)');
    expect(stDetailText(t('pt-BR'), { ...budget, cap: 2048 })).toBe(
      'orçamento: 2.100 tokens atingiriam o orçamento de 2.048 (25% de 8.192, limitado a 2.048)',
    );
    expect(stDetailText(t('en'), { code: 'secondary', logic: null, hits: 0, n: 2 })).toBe(
      'optional filter of an unknown logic failed (0 of 2 matched)',
    );
    expect(stDetailText(t('pt-BR'), { code: 'no_match', depth: 8 })).toBe('nenhuma chave primária nas últimas 8 mensagens');
    // Issue 8: a regex key that ran out of its step budget, in both languages.
    expect(stDetailText(t('en'), { code: 'regex_too_slow', key: '/(a+)+$/' })).toBe(
      'regex key /(a+)+$/ took too long on this chat; treated as not matching',
    );
    expect(stDetailText(t('pt-BR'), { code: 'regex_too_slow', key: '/(a+)+$/' })).toBe(
      'a chave regex /(a+)+$/ demorou demais nesta conversa; tratada como sem correspondência',
    );
    expect(stReasonText(t('en'), { code: 'key', key: 'rain', pass: 2, widened: null })).toBe('key "rain" (pass 2)');
    expect(stReasonText(t('pt-BR'), { code: 'sticky', left: 3 })).toBe('persistente: faltam 3 mensagens');
    expect(stReasonText(t('en'), { code: 'constant' })).toBe('constant');
    expect(macroDecisionText(t('en'), { kind: 'if', condition: '.weather', value: '', branch: 'else' })).toBe(
      'macros: {{if .weather}} is "": the {{else}} branch',
    );
    expect(macroDecisionText(t('pt-BR'), { kind: 'var', name: 'vip', global: true, value: null })).toBe('macros: $vip não está definida');
    expect(stReasonText(t('en'), { code: 'key', key: '{{user}} smiled', pass: 1, widened: null, expanded: 'Ann smiled' })).toBe(
      'key "{{user}} smiled", "Ann smiled" after macros (pass 1)',
    );
  });

  it('words the budget as percent of the context, with the cap when it applies', () => {
    const b = { percent: 25, context: 8192, cap: 0, budget: 2048, used: 51 };
    expect(stBudgetText(t('en'), 'en', b)).toBe('Budget: 25% of 8,192 = 2,048 tokens; 51 used');
    expect(stBudgetText(t('pt-BR'), 'pt-BR', b)).toBe('Orçamento: 25% de 8.192 = 2.048 tokens; 51 usados');
    expect(stBudgetText(t('en'), 'en', { ...b, cap: 300, budget: 300 })).toBe(
      'Budget: 25% of 8,192, capped at 300 tokens; 51 used',
    );
  });
});

describe('roleText', () => {
  it('words the prompt roles in the UI language and leaves other names as they are', () => {
    expect(roleText(t('pt-BR'), 'assistant')).toBe(format('pt-BR', 'role.assistant', {}));
    expect(roleText(t('pt-BR'), 'assistant')).not.toBe('assistant');
    expect(roleText(t('en'), 'user')).toBe(format('en', 'role.user', {}));
    expect(roleText(t('pt-BR'), 'Seraphina')).toBe('Seraphina');
  });
});

describe('settingDroppedText', () => {
  it('says which saved setting was dropped, naming a file by its name, in the UI language', () => {
    const file = { setting: 'tokenizer_file', value: '/t/gone.json', detail: 'no such file', using: 'gpt-4o' } as const;
    expect(settingDroppedText(t('en'), file)).toBe('The tokenizer file chosen last time, gone.json, cannot be read (no such file); counting with gpt-4o.');
    expect(settingDroppedText(t('pt-BR'), file)).toMatch(/^O arquivo de tokenizador escolhido da última vez, gone\.json,/);
    const model = { setting: 'model', value: 'claudia-9', detail: 'unknown model', using: 'gpt-4o' } as const;
    expect(settingDroppedText(t('pt-BR'), model)).toContain('"claudia-9"');
  });
});

describe('lint problems', () => {
  const name = (r: { book: number; id: number }) => `#${r.id}`;

  it('has every lint message in both languages', () => {
    for (const locale of ['en', 'pt-BR'] as const) {
      for (const key of lintKeys) {
        const text = format(locale, key, { n: 2 });
        expect(text.trim(), `${locale} ${key}`).toBeTruthy();
        expect(text, `${locale} ${key}`).not.toBe(key);
      }
    }
  });

  it('words findings with their parameters and the entries they name', () => {
    const dup: Finding = { code: 'duplicate_key', key: 'dragon', others: [{ book: 0, id: 4 }, { book: 1, id: 7 }], more: 3 };
    expect(findingText(t('en'), dup, name)).toBe('key "dragon" is also a key of #4, #7 and 3 more');
    expect(findingText(t('pt-BR'), dup, name)).toBe('a chave "dragon" também é chave de #4, #7 e mais 3');
    const common = { code: 'key_too_common', key: 'the', reason: 'stop_word', language: 'en' } as const;
    expect(findingText(t('pt-BR'), common, name)).toContain('palavras mais comuns em inglês');
    const chat = { code: 'key_too_common', key: 'sea', reason: 'chat', matched: 9, messages: 12 } as const;
    expect(findingText(t('en'), chat, name)).toBe('key "sea" matches in 9 of the chat’s 12 messages');
    expect(findingText(t('en'), { code: 'secondary_unused', count: 1 }, name)).toBe(
      '1 secondary key on an entry that is not selective: it is never tested',
    );
    const loop: Finding = { code: 'recursion_loop', cycle: [{ book: 0, id: 1 }, { book: 0, id: 2 }, { book: 0, id: 1 }], dead: false };
    expect(findingText(t('en'), loop, name)).toBe('entries name each other (each activates once, so the loop changes nothing): #1 → #2 → #1');
    expect(findingText(t('en'), { ...loop, dead: true }, name)).toBe(
      'entries wait for recursion and only name each other, so none of them ever activates: #1 → #2 → #1',
    );
    // Issue 44: a shared key with its evidence.
    const grouped: Finding = { ...dup, more: 0, effect: { kind: 'same_group', group: 'beasts' } };
    expect(findingText(t('en'), grouped, name)).toBe(
      'key "dragon" is also a key of #4, #7, in the same inclusion group "beasts": only one of them is inserted when it matches',
    );
    const cut: Finding = { ...dup, more: 0, effect: { kind: 'always_cut', requests: 3 } };
    expect(findingText(t('pt-BR'), cut, name)).toBe(
      'a chave "dragon" também é chave de #4, #7: no log do chat esta entrada ativou 3 vezes, e o orçamento a cortou todas as vezes',
    );
    const gated = { code: 'decorator_contradictory', first: 'keep', second: 'dont_activate_after_match', reason: 'keep_gated' } as const;
    expect(findingText(t('en'), gated, name)).toBe('@@keep never applies: @@dont_activate_after_match shuts the entry out once it has matched');
    const other = { code: 'decorator_no_effect', decorator: 'depth', reason: 'other_rules', rules: 'sillytavern' } as const;
    expect(findingText(t('en'), other, name)).toBe('@@depth belongs to the rules of SillyTavern 1.15–1.19: ignored under the rules in use');
    const budget = { code: 'entry_over_budget', tokens: 900, budget: 400, assumed: false } as const;
    expect(findingText(t('pt-BR'), budget, name)).toBe('900 tokens sozinhos passam do orçamento de 400: nunca é mantida');
    expect(findingText(t('en'), { ...budget, assumed: true }, name)).toBe(
      "900 tokens alone exceed the budget of 400: it is never kept (an assumed budget: give the front-end's settings or context size to check against yours)",
    );
  });

  it('labels quick fixes', () => {
    expect(fixText(t('en'), { kind: 'set_selective', value: false })).toBe('Turn selective off');
    expect(fixText(t('pt-BR'), { kind: 'clear_secondary_keys' })).toBe('Remover as chaves secundárias');
    expect(fixText(t('en'), { kind: 'replace_content', start: 0, end: 3, text: '@@depth 4' })).toBe('Replace with "@@depth 4"');
  });

  it('words the outdated-fix error', () => {
    expect(errorText(t('en'), { message: 'x', code: { code: 'fix_outdated' } })).toContain('fix was not applied');
    const range = { code: 'out_of_range', setting: 'max_recursion_steps', min: 0, max: 10 } as const;
    expect(errorText(t('en'), { message: 'x', code: range })).toBe('Max recursion steps (0 = no limit) must be a whole number from 0 to 10');
    expect(errorText(t('pt-BR'), { message: 'x', code: range })).toContain('deve ser um número inteiro de 0 a 10');
  });
});

describe("RisuAI's rules", () => {
  it('has a message for every reason and position in both languages', () => {
    expect(new Set(risuKeys).size).toBe(risuKeys.length);
    for (const locale of ['en', 'pt-BR'] as const) {
      for (const key of risuKeys) expect(catalogs[locale][key]?.trim(), `${locale} ${key}`).toBeTruthy();
    }
  });

  it('names the RisuAI rule with its numbers, in both languages', () => {
    const excluded = { kind: 'excluded', key: 'storm', found: { kind: 'message', n: 2 } } as const;
    expect(risuDropText(t('en'), excluded)).toBe('@@exclude_keys: "storm" is in message 2');
    expect(risuDropText(t('pt-BR'), excluded)).toBe('@@exclude_keys: "storm" está na mensagem 2');
    expect(risuDropText(t('en'), { kind: 'budget', tokens: 40, left: 12 })).toBe('cut by the budget: 40 tokens needed, 12 left');
    expect(risuDropText(t('en'), { kind: 'regex', end: { kind: 'no_slash' } })).toMatch(/without a leading "\/"/);
    // NaN arrives as null from the engine's JSON.
    const nan = { kind: 'only_after', n: null as unknown as number, length: 3 } as const;
    expect(risuDropText(t('en'), nan)).toBe('@@activate_only_after NaN: the chat length is 3 (messages + 1)');
    expect(t('en')(risuDropKind({ kind: 'forced_off' }))).toBe('Decorators');
    expect(risuWhyText(t('pt-BR'), { kind: 'key', key: 'porto', found: { kind: 'entry', name: 'Cais' } })).toBe(
      'chave "porto" no texto da entrada "Cais" (recursão)',
    );
  });

  it('words where RisuAI puts an entry', () => {
    expect(risuPositionText(t('en'), { position: 'depth', depth: 2, role: 'assistant' })).toBe('@@depth 2 (from the start of the chat) as assistant');
    expect(risuPositionText(t('en'), { position: 'pt_lore', depth: null, role: 'system' })).toBe('template slot lore');
    expect(risuPositionText(t('en'), { position: 'lorebook', depth: null, role: 'system' })).toBe('lorebook block');
    expect(risuPositionText(t('pt-BR'), { position: 'after_desc', depth: null, role: 'system' })).toBe('depois da descrição');
  });
});

