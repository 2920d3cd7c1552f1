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

/** The kinds the console words, for a filter's choices: each with its words. */
export function knownKinds(): { value: string; label: string }[] {
  return Object.keys(kinds).map((kind) => ({ value: kind, label: kindLabel(kind) }));
}

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

/**
 * Who asked, as people say it: a person by name, "the API key (api_token)", "token ops",
 * "the schedule «Morning»", "the power calendar of Lab 1", "the scheduler".
 */
export function askerText(who: string | null, source: string | null): string {
  if (who === null) return t('who.nobody');
  switch (source) {
    case 'key':
      return t('who.key', { name: who });
    case 'token':
      return t('who.token', { name: who });
    case 'scheduler':
      return t('who.scheduler');
    case 'schedule':
      return t('who.schedule', { name: who });
    case 'calendar':
      return t('who.calendar', { name: who });
    default:
      return who;
  }
}

type Params = Record<string, unknown> | null;
const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));

/**
 * What a job asked for, in a sentence: the command a script ran, the image and partition of a
 * restore, the wake run and its packets; a kind the console does not know by its params.
 */
export function whatText(kind: string, params: Params): string {
  if (kind === 'shell/run') return params ? t('what.command', { command: text(params.run) }) : t('what.commandHidden');
  if (!params) return '';
  switch (kind) {
    case 'image/restore':
      return t('what.restore', {
        image: text(params.name || params.id),
        disk: text(params.disk),
        partition: text(params.partition),
        type: text(params.type),
      });
    case 'image/create':
      return t('what.create', { image: text(params.name), disk: text(params.disk), partition: text(params.partition) });
    case 'wol':
      return t('what.wake', { run: text(params.run), type: text(params.type) });
    case 'session':
      return t('what.session', { disk: text(params.disk), partition: text(params.partition) });
    case 'software':
      return params.disk === undefined ? '' : t('what.partition', { disk: text(params.disk), partition: text(params.partition) });
    case 'setup':
      return t('what.setup', { disk: text(params.disk), type: text(params.type) });
    default: {
      const pairs = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && typeof v !== 'object');
      return pairs.map(([k, v]) => `${k} ${String(v)}`).join(', ');
    }
  }
}
