import { type MessageKey, t } from '../i18n';

/**
 * A job's words in the console's language: the jobs plugin names its kinds by agent path
 * (`shell/run`) and says each PC's outcome in English (`exit code 1`, `no answer within
 * 300 s`); a person reads the action and the outcome in their own language.
 */

const kinds: Record<string, MessageKey> = {
  wol: 'action.wake',
  poweroff: 'action.poweroff',
  reboot: 'action.reboot',
  refresh: 'action.refresh',
  'shell/run': 'action.shell',
  'image/create': 'action.createImage',
  'image/restore': 'action.restoreImage',
  setup: 'action.setup',
  session: 'action.session',
  hardware: 'action.hardware',
  software: 'action.software',
  'cache/delete': 'kind.cacheDelete',
  'cache/fetch': 'kind.cacheFetch',
  stop: 'kind.stop',
};

/** The action a job's kind stands for (`Run command`); a third-party plugin's kind as it is. */
export function kindLabel(kind: string): string {
  const key = kinds[kind];
  return key ? t(key) : kind;
}

type Rule = [RegExp, MessageKey, ((m: RegExpMatchArray) => Record<string, string>)?];

const outcomes: Rule[] = [
  [/^success$/, 'outcomeText.success'],
  [/^exit code (-?\d+)$/, 'outcomeText.exitCode', (m) => ({ code: m[1]! })],
  [/^the agent answered (\d+)$/, 'outcomeText.agentStatus', (m) => ({ status: m[1]! })],
  [/^the answer could not be stored$/, 'outcomeText.notStored'],
  [/^the client was busy$/, 'outcomeText.busy'],
  [/^the client is not connected$/, 'outcomeText.notConnected'],
  [/^no answer within (\d+) s$/, 'outcomeText.noAnswerWithin', (m) => ({ seconds: m[1]! })],
  [/^the agent stopped$/, 'outcomeText.agentStopped'],
  [/^the server stopped before the agent answered$/, 'outcomeText.serverStopped'],
  [/^woken: its agent connected$/, 'outcomeText.woken'],
  [/^its agent did not connect after (\d+) wake\(s\) \((\w+)\)$/, 'outcomeText.notWoken', (m) => ({ count: m[1]!, reason: m[2]! })],
  [/^the magic packets could not be sent$/, 'outcomeText.sendFailed'],
  [/^the wake run was cancelled$/, 'outcomeText.cancelled'],
  [/^magic packets sent \(wol\.verify_s 0: not checked\)$/, 'outcomeText.unverified'],
];

/** A PC's outcome in a job, in words of the console's language; one the console does not know stays as the server said it. */
export function outcomeText(outcome: string): string {
  for (const [test, key, vars] of outcomes) {
    const match = outcome.match(test);
    if (match) return t(key, vars?.(match) ?? {});
  }
  return outcome;
}
