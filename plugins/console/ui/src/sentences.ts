import { type MessageKey, t } from './i18n';

/**
 * The API's refusals as sentences in the console's language. The server words its errors for
 * whoever calls it (`'mac' must be a valid mac`, `client: '10.1' is not an IPv4 address`);
 * a person filling in a form wants the field's own label and what to type instead. Known
 * rules become a sentence of the catalogue; any other keeps the server's words, after the
 * field's label.
 */

type Rule = { test: RegExp; key: MessageKey; vars?: (match: RegExpMatchArray) => Record<string, string> };

/** Checked in order against the message without its field name; the first that matches wins. */
const rules: Rule[] = [
  { test: /^is required$/, key: 'problem.required' },
  { test: /^must NOT have fewer than 1 characters?$/, key: 'problem.required' },
  { test: /^must NOT have fewer than (\d+) characters$/, key: 'problem.tooShort', vars: (m) => ({ n: m[1]! }) },
  { test: /^must be at least (\d+) characters$/, key: 'problem.tooShort', vars: (m) => ({ n: m[1]! }) },
  { test: /^must NOT have more than (\d+) characters$/, key: 'problem.tooLong', vars: (m) => ({ n: m[1]! }) },
  { test: /^(must be a valid ipv4|'.*' is not an IPv4 address)$/, key: 'problem.ipv4' },
  { test: /^must be a valid host address$/, key: 'problem.hostAddress' },
  { test: /^must be a single card's MAC/, key: 'problem.unicastMac' },
  { test: /^(must be a valid mac|'.*' is not a MAC\b.*)$/, key: 'problem.mac' },
  { test: /^must be a valid netmask$/, key: 'problem.netmask' },
  { test: /^must be (a valid (printable name|line of text)|text without control characters)/, key: 'problem.controlCharacters' },
  { test: /^'.*' is not an ISO 8601 date/, key: 'problem.date' },
  { test: /^must be an ISO 8601 time/, key: 'problem.date' },
  { test: /^must be <= (\d+)$/, key: 'problem.atMost', vars: (m) => ({ n: m[1]! }) },
  { test: /^must be >= (\d+)$/, key: 'problem.atLeast', vars: (m) => ({ n: m[1]! }) },
  { test: /^must be a whole number from (\d+) to (\d+)$/, key: 'problem.between', vars: (m) => ({ min: m[1]!, max: m[2]! }) },
  { test: /^must be (string|integer|number|boolean|array|object)$/, key: 'problem.type' },
  { test: /^must be one of (.+)$/, key: 'problem.oneOf', vars: (m) => ({ values: m[1]! }) },
];

/** Refusals of the whole request rather than of a field. */
const wholeRules: Rule[] = [
  { test: /^the response would exceed (\d+) bytes$/, key: 'problem.tooLarge', vars: (m) => ({ bytes: m[1]! }) },
  // The groups plugin's 409: what uses the group is named by its plugin (`schedule 'Monday' (3, task 'Inventory')`).
  { test: /^group \d+ is the target of (.+): change or delete them first$/, key: 'problem.groupInUse', vars: (m) => ({ users: m[1]! }) },
];

/** The message without the field's name the server put first (`'mac' `, `client: `, `'clients[2]' `). */
function withoutField(message: string, field: string | undefined): string {
  if (!field) return message;
  for (const prefix of [`'${field}' `, `${field}: `]) if (message.startsWith(prefix)) return message.slice(prefix.length);
  return message;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toLocaleUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** A refusal of the API as a sentence about the field labelled `label` (the field's API name when no label is shown). */
export function problemSentence(error: { field?: string; message: string }, label?: string): string {
  const name = label ?? error.field ?? '';
  const rest = withoutField(error.message, error.field);
  if (rest === error.message && !error.field) {
    for (const rule of wholeRules) {
      const match = rest.match(rule.test);
      if (match) return t(rule.key, rule.vars?.(match) ?? {});
    }
    return sentence(error.message);
  }
  for (const rule of rules) {
    const match = rest.match(rule.test);
    if (match) return sentence(t(rule.key, { label: name, ...(rule.vars?.(match) ?? {}) }));
  }
  return sentence(rest === error.message ? error.message : `${name}: ${rest}`);
}
