// How components get the stores: `App.svelte` creates the one `Studio` and
// hands its parts down through Svelte context (`provideStudio`); each
// component asks for just what it uses, during its initialisation:
//
//   const docs = getDocs();
//   const { t } = getI18n();
//
// `getStudio` is for the actions that span stores (save, open, undo,
// switching books, revealing an entry); state is read from its store.
import { createContext } from 'svelte';
import type { Catalog } from './bindings';
import type { Locale } from './i18n';
import type { Documents } from './documents.svelte';
import type { EntryDraft } from './draft.svelte';
import type { Preview } from './preview.svelte';
import type { Problems } from './problems.svelte';
import type { Scenarios } from './scenarios.svelte';
import type { Impact } from './impact.svelte';
import type { Figures } from './figures.svelte';
import type { Dialogs } from './dialogs.svelte';
import type { Recovery } from './recovery.svelte';
import type { Feedback, Run } from './feedback.svelte';
import type { Studio } from './studio.svelte';

/** The UI's language: `t` and `num` read the current locale each call,
 *  so they may be destructured; read `locale` through the object. */
export interface I18n {
  readonly locale: Locale;
  readonly t: Studio['t'];
  readonly num: Studio['num'];
}

/** The span of the problem last clicked (see `Studio.highlight`). */
export type Highlight = Studio['highlight'];

// Each `get…` throws when no ancestor provided its store.
export const [getStudio, setStudio] = createContext<Studio>();
export const [getDocs, setDocs] = createContext<Documents>();
export const [getEntry, setEntry] = createContext<EntryDraft>();
export const [getPreview, setPreview] = createContext<Preview>();
export const [getProblems, setProblems] = createContext<Problems>();
export const [getScenarios, setScenarios] = createContext<Scenarios>();
export const [getImpact, setImpact] = createContext<Impact>();
export const [getFigures, setFigures] = createContext<Figures>();
export const [getDialogs, setDialogs] = createContext<Dialogs>();
export const [getRecovery, setRecovery] = createContext<Recovery>();
export const [getFeedback, setFeedback] = createContext<Feedback>();
/** `feedback.run`: the one way to start an action and report its error. */
export const [getRun, setRun] = createContext<Run>();
export const [getI18n, setI18n] = createContext<I18n>();
/** What the engine offers, `null` until loaded: call it where it is read. */
export const [getCatalog, setCatalog] = createContext<() => Catalog | null>();
/** The problem to select in the editor: call it where it is read. */
export const [getHighlight, setHighlight] = createContext<() => Highlight>();

/** Provides `studio` and each of its stores to the calling component's
 *  descendants. Call once, in the root component's initialisation. */
export function provideStudio(studio: Studio): void {
  setStudio(studio);
  setDocs(studio.docs);
  setEntry(studio.entry);
  setPreview(studio.preview);
  setProblems(studio.problems);
  setScenarios(studio.scenarios);
  setImpact(studio.impact);
  setFigures(studio.figures);
  setDialogs(studio.dialogs);
  setRecovery(studio.recovery);
  setFeedback(studio.feedback);
  setRun(studio.run);
  setI18n({
    get locale() {
      return studio.locale;
    },
    t: studio.t,
    num: studio.num,
  });
  setCatalog(() => studio.catalog);
  setHighlight(() => studio.highlight);
}
