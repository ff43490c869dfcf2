// How the Scenarios panel words a broken expectation: the failure's code
// with its parameters, and the rules' own reason worded as the preview
// words it (each profile's reasons have their catalog words already).
import { risuDropText, risuWhyText, stDetailText, stReasonText } from './messages';
import { activationText, dropText, type T } from './previewText';
import type { Failure, Reason } from './bindings';

/** The rules' reason why an entry is in or out. */
export function reasonText(t: T, names: Map<string, string>, r: Reason): string {
  switch (r.is) {
    case 'studio_in':
      return activationText(t, names, r.why);
    case 'studio_out':
      return dropText(t, r.why);
    case 'sillytavern_in':
      return stReasonText(t, r.why);
    case 'sillytavern_out':
      return stDetailText(t, r.why);
    case 'risu_in':
      return risuWhyText(t, r.why);
    case 'risu_out':
      return risuDropText(t, r.why);
    case 'risu_failed':
      return t('scenarioFail.risuFailed', { entry: r.entry });
  }
}

/** One broken expectation. */
export function failureText(t: T, names: Map<string, string>, f: Failure): string {
  switch (f.code) {
    case 'not_injected':
      return t('scenarioFail.not_injected', { name: f.name, request: f.request, why: f.reason ? reasonText(t, names, f.reason) : t('scenarioFail.unlisted') });
    case 'injected':
      return t('scenarioFail.injected', { name: f.name, request: f.request, why: f.reason ? reasonText(t, names, f.reason) : '' });
    case 'moved':
      return t('scenarioFail.moved', { name: f.name, request: f.request, expected: f.expected, found: f.found });
    case 'missing':
      return t('scenarioFail.missing', { name: f.name || `#${f.id}` });
    case 'over_budget':
      return t('scenarioFail.over_budget', { request: f.request, used: f.used, max: f.max });
    case 'cut':
      return t('scenarioFail.cut', { request: f.request, names: f.names.join(', ') });
    case 'no_such_request':
      return t('scenarioFail.no_such_request', { request: f.request, requests: f.requests });
  }
}
