// The model picker's choices: the engine's tokenizer families grouped by
// vendor or model line, the exact/approximate mark, the user's tokenizer
// file when one counts, and "Custom file…".
import type { FamilyView } from './bindings';

/** The option that opens the native dialog for a tokenizer file. */
export const CUSTOM_FILE = ':custom-file';
/** The option standing for the user's file while it counts. */
export const FILE_IN_USE = ':file-in-use';

export interface PickerOption {
  value: string;
  /** The model's name, or the file's name for `FILE_IN_USE`. */
  name: string;
  /** Counts under it are approximate ("≈"). */
  approximate: boolean;
}

export interface PickerGroup {
  /** The family group's name (`Llama 3.x`), or `null` for the choices
   *  shown outside any group (the model or file in use when no group
   *  lists it). */
  label: string | null;
  options: PickerOption[];
}

/** The last part of a path, either separator. */
export function fileName(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}

/** One group per family group in the engine's order, each with the models
 *  of its families (a model listed twice is shown once). The model in use
 *  when no group lists it (a name typed in the CLI, saved by an older
 *  version), and the user's file when it counts, come first, ungrouped;
 *  `currentApproximate` is whether the model in use counts approximately. */
export function pickerGroups(
  families: readonly FamilyView[],
  current: { model: string; file: string | null; approximate: boolean } | null,
): PickerGroup[] {
  const groups: PickerGroup[] = [];
  const seen = new Set<string>();
  for (const f of families) {
    let group = groups.find((g) => g.label === f.group);
    if (!group) {
      group = { label: f.group, options: [] };
      groups.push(group);
    }
    for (const m of f.models) {
      if (seen.has(m)) continue;
      seen.add(m);
      group.options.push({ value: m, name: m, approximate: !f.exact });
    }
  }
  const loose: PickerOption[] = [];
  if (current?.file) loose.push({ value: FILE_IN_USE, name: fileName(current.file), approximate: false });
  else if (current && current.model && !seen.has(current.model)) {
    loose.push({ value: current.model, name: current.model, approximate: current.approximate });
  }
  return loose.length > 0 ? [{ label: null, options: loose }, ...groups] : groups;
}

/** The picker's selected value. */
export function pickerValue(current: { model: string; file: string | null }): string {
  return current.file ? FILE_IN_USE : current.model;
}
