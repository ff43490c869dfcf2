// The "Character & persona" inputs of the preview under SillyTavern's
// rules: what each field shows and what an edit sends. A card field that
// is `null` follows the attached card (its text shown, marked as the
// card's); typing replaces it, even with nothing; "use the card's text"
// sets it back to `null`. Rust resolves the same way (st_inputs.rs).
import { MAX_INJECTION_DEPTH, type StCardView, type StCharacterNoteView, type StInputsView } from './bindings';

/** The card's text fields, in the order the panel shows them. */
export const CARD_TEXTS = ['description', 'personality', 'scenario', 'examples', 'creator_notes'] as const;
export type CardText = (typeof CARD_TEXTS)[number];

/** SillyTavern's defaults for a character's note: depth 4, as system. */
export const DEFAULT_NOTE: StCharacterNoteView = { text: '', depth: 4, role: 'system' };

/** What a field shows: `fromCard` when the value is the card's own,
 *  `edited` when the user's text stands in for an attached card's. */
export interface Shown<T> {
  value: T;
  fromCard: boolean;
  edited: boolean;
}

export function shownText(inputs: StInputsView, card: StCardView | null, field: CardText): Shown<string> {
  const own = inputs[field];
  if (own !== null) return { value: own, fromCard: false, edited: card !== null };
  const value = card?.[field] ?? '';
  return { value, fromCard: value !== '', edited: false };
}

/** The inputs with `field` typed as `value`. Without a card, an emptied
 *  field goes back to following one, so a card attached later fills it;
 *  with a card, an emptied field stays empty (the card's text cleared). */
export function withText(inputs: StInputsView, card: StCardView | null, field: CardText, value: string): StInputsView {
  return { ...inputs, [field]: value === '' && card === null ? null : value };
}

/** The inputs with `field` following the card again. */
export function followCard(inputs: StInputsView, field: CardText | 'character_note'): StInputsView {
  return { ...inputs, [field]: null };
}

export function shownNote(inputs: StInputsView, card: StCardView | null): Shown<StCharacterNoteView> {
  if (inputs.character_note !== null) return { value: inputs.character_note, fromCard: false, edited: card !== null };
  const from = card?.character_note ?? null;
  return { value: from ?? DEFAULT_NOTE, fromCard: from !== null, edited: false };
}

/** The inputs with the character's note changed by `patch`, starting from
 *  what is shown (the card's note while it follows the card). */
export function withNote(inputs: StInputsView, card: StCardView | null, patch: Partial<StCharacterNoteView>): StInputsView {
  const note = { ...shownNote(inputs, card).value, ...patch };
  const blank = note.text === '' && note.depth === DEFAULT_NOTE.depth && note.role === DEFAULT_NOTE.role;
  return { ...inputs, character_note: blank && card === null ? null : note };
}

/** A number input's text as a whole number from `lo` to `hi`, else `null`
 *  (the same ranges Rust checks). */
export function wholeIn(text: string, lo: number, hi: number): number | null {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isInteger(n) && n >= lo && n <= hi ? n : null;
}

/** The deepest in-chat injection SillyTavern makes, and the largest
 *  Author's Note frequency the app takes (decided in the engine). */
export const MAX_DEPTH = MAX_INJECTION_DEPTH;
