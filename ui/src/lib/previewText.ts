// How the preview words its entries: names, why each entry is in or out,
// and the text a key match points into. Shared by the preview's lists.
import { gateText } from './messages';
import type { Activation, DropReason, KeyMatch, PreviewView } from './bindings';
import type { MessageKey, PluralKey } from './i18n';

export type T = (key: MessageKey | PluralKey, params?: Record<string, string | number>) => string;

/** The display name of entry `id` of attached book `book`. */
export function entryName(names: Map<string, string>, book: number, id: number): string {
  return names.get(`${book}:${id}`) || `#${id}`;
}

/** The text match `m` points into, as far as the view carries it. */
export function sourceText(view: PreviewView | null, m: KeyMatch): string {
  const src = m.source;
  const hit = view?.sources.find((s) =>
    s.source.kind === 'message'
      ? src.kind === 'message' && s.source.index === src.index
      : src.kind === 'entry' && s.source.book === src.book && s.source.id === src.id,
  );
  return hit?.text ?? '';
}

export function whereText(t: T, names: Map<string, string>, m: KeyMatch): string {
  return m.source.kind === 'message'
    ? t('reason.inMessage', { n: m.source.index + 1 })
    : t('reason.inEntry', { name: entryName(names, m.source.book, m.source.id) });
}

export function activationText(t: T, names: Map<string, string>, a: Activation): string {
  if (a.kind === 'constant') return t('reason.constant');
  if (a.kind === 'kept') return t('reason.kept', { n: a.since_request });
  return t('reason.key', { key: a.primary.key, where: whereText(t, names, a.primary), pass: a.primary.pass });
}

/** Why an entry is out. `cutAfter`: the name of the entry the budget
 *  stopped at, for a budget drop of any later entry (the guide's rule
 *  drops everything after the first entry that does not fit, even an
 *  entry that would fit what is left). */
export function dropText(t: T, d: DropReason, cutAfter: string | null = null): string {
  switch (d.kind) {
    case 'disabled':
      return t('drop.disabled');
    case 'gated':
      return t('drop.gated', { decorator: d.decorator, detail: gateText(t, d.detail) });
    case 'no_match':
      if (d.no_keys) return t('drop.no_keys');
      if (d.gave_up !== null) return t('drop.gave_up', { key: d.gave_up });
      return d.recursion_stopped ? t('drop.recursion_stopped') : t('drop.no_match');
    case 'secondary':
      return t('drop.secondary', { logic: d.logic });
    case 'probability':
      return t('drop.probability', { roll: d.roll, chance: d.chance });
    case 'budget':
      return cutAfter === null
        ? t('drop.budget', { needed: d.needed, left: d.left })
        : t('drop.budgetAfter', { name: cutAfter, needed: d.needed, left: d.left });
  }
}
