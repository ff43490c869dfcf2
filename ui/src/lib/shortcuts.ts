// Shortcuts in tooltips, from the one action table (src-tauri/src/menu.rs,
// generated into bindings.ts), so a tooltip shows the accelerator the
// native menu binds.
import { ACTIONS, type ActionId } from './bindings';

/** An accelerator as shown in a tooltip (`CmdOrCtrl` reads as `Ctrl`). */
function shown(accelerator: string): string {
  return accelerator.replace('CmdOrCtrl', 'Ctrl');
}

/** The shortcut of every action, by id. */
export const shortcuts = Object.fromEntries(ACTIONS.map((a) => [a.id, shown(a.accelerator)])) as Record<ActionId, string>;

/** A tooltip: the label and its shortcut (the label alone for an action
 *  without one). */
export function tip(label: string, action: ActionId): string {
  const keys = shortcuts[action];
  return keys === '' ? label : `${label} (${keys})`;
}
