import { StartupError, ipv4ToInt, isIpv4 } from 'ogserve';
import type { EnrolRule } from './schemas';

/** What a rule is matched against: a discovered PC's address and components. */
export interface RuleSubject {
  ip: string;
  hardware: { type: string; description: string }[];
}

/** A rule as matched: its number in `enrol.rules` (from 1), and what it asks. */
export interface MatchedRule {
  number: number;
  rule: EnrolRule;
}

interface CompiledRule extends MatchedRule {
  network?: { base: number; mask: number };
  /** Type code to the text one of its components must hold, lower case. */
  hardware: [string, string][];
}

/**
 * `enrol.rules`, in order: a rule matches a PC when every condition it gives holds (its
 * address in `network`; for each of `hardware`'s type codes, and `model` for `mod`, a
 * component of that type holding the text, in any case). A rule with no condition matches
 * every PC. The first that matches decides.
 */
export class Rules {
  private readonly rules: CompiledRule[];

  constructor(rules: EnrolRule[]) {
    this.rules = rules.map((rule, i) => {
      const number = i + 1;
      const compiled: CompiledRule = { number, rule, hardware: [] };
      if (rule.network) {
        const [address, bits] = rule.network.split('/');
        const prefix = Number(bits);
        if (!isIpv4(address!) || prefix > 32)
          throw new StartupError(`enrol.rules[${i}].network: '${rule.network}' is not a network such as 10.1.3.0/24`);
        const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
        compiled.network = { base: (ipv4ToInt(address!) & mask) >>> 0, mask };
      }
      for (const [type, text] of Object.entries({ ...rule.hardware, ...(rule.model ? { mod: rule.model } : {}) }))
        compiled.hardware.push([type, text.toLowerCase()]);
      return compiled;
    });
  }

  get size(): number {
    return this.rules.length;
  }

  /** The first rule `pc` matches, if any. */
  match(pc: RuleSubject): MatchedRule | undefined {
    return this.rules.find((r) => this.holds(r, pc));
  }

  private holds(rule: CompiledRule, pc: RuleSubject): boolean {
    if (rule.network && (!isIpv4(pc.ip) || (ipv4ToInt(pc.ip) & rule.network.mask) >>> 0 !== rule.network.base)) return false;
    return rule.hardware.every(([type, text]) => pc.hardware.some((c) => c.type === type && c.description.toLowerCase().includes(text)));
  }
}
