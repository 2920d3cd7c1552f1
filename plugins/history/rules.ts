import { Type, type Static } from '@sinclair/typebox';
import type { Component, HardwareChange, SoftwareChange } from './diff';
import { sizeLabel, totalSize } from './sizes';

/**
 * What counts as an alert (`history.alerts`): each rule names a condition (`when`) and, for
 * some, what it watches. A change that meets a rule carries the rule's name, and so do the
 * `client.*.changed` events, with one sentence per rule met.
 */
export const AlertRule = Type.Object(
  {
    /** What the alert is called in events, history entries and the metric; `when` by default. */
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' })),
    when: Type.Union([
      /** The client's total memory (the sum of its `mem` lines) went down. */
      Type.Literal('memory_decreased'),
      /** The client's total disk size (the sum of its `dis` lines) went down. */
      Type.Literal('disk_decreased'),
      /** A component went without another of its type taking its place; `types` limits it to those type codes. */
      Type.Literal('component_removed'),
      /** A package was removed; `packages` names which (case ignored, `*` for any text). */
      Type.Literal('package_removed'),
    ]),
    types: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 3 }), { minItems: 1 })),
    packages: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { minItems: 1 })),
  },
  { additionalProperties: false },
);
export type AlertRule = Static<typeof AlertRule>;

export const defaultRules: AlertRule[] = [{ when: 'memory_decreased' }, { when: 'disk_decreased' }, { when: 'component_removed' }];

/** A rule met by one report: its name and what happened, in one sentence. */
export interface Alert {
  rule: string;
  message: string;
}

function nameOf(rule: AlertRule): string {
  return rule.name ?? rule.when;
}

function globMatcher(pattern: string): RegExp {
  const escaped = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${escaped}$`, 'i');
}

/** Checks reports against the configured rules; marks each change with the rules it meets. */
export class AlertRules {
  private readonly packageMatchers: Map<AlertRule, RegExp[]>;

  constructor(private readonly rules: readonly AlertRule[]) {
    this.packageMatchers = new Map(rules.map((rule) => [rule, (rule.packages ?? []).map(globMatcher)]));
  }

  /** The alerts of one hardware report, and the rules each change met (by index). */
  hardware(
    before: readonly Component[],
    after: readonly Component[],
    changes: readonly HardwareChange[],
  ): { alerts: Alert[]; marks: string[][] } {
    const alerts: Alert[] = [];
    const marks = changes.map((): string[] => []);
    const total = (items: readonly Component[], type: string) => totalSize(items.filter((c) => c.type === type).map((c) => c.description));
    for (const rule of this.rules) {
      const name = nameOf(rule);
      if (rule.when === 'memory_decreased' || rule.when === 'disk_decreased') {
        const type = rule.when === 'memory_decreased' ? 'mem' : 'dis';
        const [was, is] = [total(before, type), total(after, type)];
        if (is >= was) continue;
        alerts.push({ rule: name, message: `${type === 'mem' ? 'memory' : 'disk space'} went from ${sizeLabel(was)} to ${sizeLabel(is)}` });
        for (const [i, c] of changes.entries()) if (c.type === type) marks[i]!.push(name);
      } else if (rule.when === 'component_removed') {
        const hits = changes
          .map((c, i) => [c, i] as const)
          .filter(([c]) => c.change === 'removed' && (!rule.types || rule.types.includes(c.type)));
        if (hits.length === 0) continue;
        for (const [, i] of hits) marks[i]!.push(name);
        alerts.push({ rule: name, message: `removed: ${hits.map(([c]) => `${c.type}=${c.before}`).join('; ')}` });
      }
    }
    return { alerts, marks };
  }

  /** The alerts of one software report, and the rules each change met (by index). */
  software(changes: readonly SoftwareChange[]): { alerts: Alert[]; marks: string[][] } {
    const alerts: Alert[] = [];
    const marks = changes.map((): string[] => []);
    for (const rule of this.rules) {
      if (rule.when !== 'package_removed') continue;
      const matchers = this.packageMatchers.get(rule)!;
      const hits = changes
        .map((c, i) => [c, i] as const)
        .filter(([c]) => c.change === 'removed' && (matchers.length === 0 || matchers.some((m) => m.test(c.package))));
      if (hits.length === 0) continue;
      for (const [, i] of hits) marks[i]!.push(nameOf(rule));
      alerts.push({ rule: nameOf(rule), message: `removed: ${hits.map(([c]) => `${c.package} ${c.before ?? ''}`.trim()).join('; ')}` });
    }
    return { alerts, marks };
  }
}
