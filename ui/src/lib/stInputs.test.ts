import { describe, expect, it } from 'vitest';
import type { StCardView, StInputsView } from './bindings';
import { DEFAULT_NOTE, followCard, shownNote, shownText, wholeIn, withNote, withText } from './stInputs';

const empty: StInputsView = {
  persona: '',
  description: null,
  personality: null,
  scenario: null,
  examples: null,
  creator_notes: null,
  character_note: null,
  authors_note: { text: '', interval: 1, position: 'in_chat', depth: 4, role: 'system' },
};

const card: StCardView = {
  doc: 1,
  name: 'Mira',
  description: 'Rides a dragon.',
  personality: '',
  scenario: 'The pass.',
  examples: '',
  creator_notes: '',
  character_note: { text: 'Wary.', depth: 3, role: 'assistant' },
  system_prompt: false,
};

describe('SillyTavern character & persona inputs', () => {
  it("shows the card's text until edited, then the user's", () => {
    expect(shownText(empty, card, 'description')).toEqual({ value: 'Rides a dragon.', fromCard: true, edited: false });
    expect(shownText(empty, card, 'personality')).toEqual({ value: '', fromCard: false, edited: false });
    expect(shownText(empty, null, 'description')).toEqual({ value: '', fromCard: false, edited: false });
    const typed = withText(empty, card, 'description', 'Walks.');
    expect(typed.description).toBe('Walks.');
    expect(shownText(typed, card, 'description')).toEqual({ value: 'Walks.', fromCard: false, edited: true });
    // Cleared with a card: stays empty instead of showing the card's again.
    const cleared = withText(typed, card, 'description', '');
    expect(cleared.description).toBe('');
    expect(shownText(cleared, card, 'description').value).toBe('');
    expect(followCard(cleared, 'description').description).toBeNull();
    // Without a card, an emptied field follows whatever card comes later.
    expect(withText(empty, null, 'scenario', 'x').scenario).toBe('x');
    expect(withText(empty, null, 'scenario', '').scenario).toBeNull();
    expect(shownText(withText(empty, null, 'scenario', 'x'), null, 'scenario').edited).toBe(false);
  });

  it("edits the character's note from what is shown", () => {
    expect(shownNote(empty, card)).toEqual({ value: card.character_note, fromCard: true, edited: false });
    expect(shownNote(empty, null)).toEqual({ value: DEFAULT_NOTE, fromCard: false, edited: false });
    // Changing the depth keeps the card's text and role.
    const deeper = withNote(empty, card, { depth: 6 });
    expect(deeper.character_note).toEqual({ text: 'Wary.', depth: 6, role: 'assistant' });
    expect(shownNote(deeper, card).edited).toBe(true);
    expect(followCard(deeper, 'character_note').character_note).toBeNull();
    // Without a card, a note typed then emptied goes back to none.
    const typed = withNote(empty, null, { text: 'Hush.' });
    expect(typed.character_note).toEqual({ ...DEFAULT_NOTE, text: 'Hush.' });
    expect(withNote(typed, null, { text: '' }).character_note).toBeNull();
    expect(withNote(empty, null, { role: 'user' }).character_note).toEqual({ ...DEFAULT_NOTE, role: 'user' });
  });

  it('takes whole numbers in range only', () => {
    expect(wholeIn('4', 0, 10000)).toBe(4);
    expect(wholeIn('0', 0, 10000)).toBe(0);
    expect(wholeIn('', 0, 10000)).toBeNull();
    expect(wholeIn('1.5', 0, 10000)).toBeNull();
    expect(wholeIn('-1', 0, 10000)).toBeNull();
    expect(wholeIn('10001', 0, 10000)).toBeNull();
  });
});
