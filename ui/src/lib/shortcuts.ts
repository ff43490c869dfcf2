// The shortcut table: the same ids and accelerators as the native menu
// (src-tauri/src/menu.rs), shown in tooltips.

export const shortcuts: Record<string, string> = {
  new_book: 'Ctrl+N',
  open: 'Ctrl+O',
  save: 'Ctrl+S',
  save_as: 'Ctrl+Shift+S',
  import: 'Ctrl+I',
  export: 'Ctrl+Shift+E',
  open_chat: 'Ctrl+Shift+O',
  close_book: 'Ctrl+W',
  quit: 'Ctrl+Q',
  undo: 'Ctrl+Z',
  redo: 'Ctrl+Shift+Z',
  find: 'Ctrl+F',
  new_entry: 'Ctrl+E',
  duplicate_entry: 'Ctrl+D',
  next_entry: 'Alt+Down',
  previous_entry: 'Alt+Up',
  reroll: 'Ctrl+R',
  toggle_theme: 'Ctrl+Shift+L',
};

/** A tooltip: the label and its shortcut. */
export function tip(label: string, action: string): string {
  const s = shortcuts[action];
  return s ? `${label} (${s})` : label;
}
