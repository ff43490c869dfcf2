// File paths as the UI shows them: by their name, the full path in a tooltip.

/** The last part of a file path, for showing a file by its name. */
export function fileName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}
