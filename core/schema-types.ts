import { Type, type TString, type TUnion, type TInteger } from '@sinclair/typebox';
import { MAX_INT } from './formats';

/**
 * Reusable request-schema pieces. Existing clients send ids both as JSON integers and as
 * numeric strings (`{"id": "10"}`), so ids accept both; `toInt` reads either. Either form
 * stops at MAX_INT (2^31-1), what the database columns hold; sizes have their own types.
 */
export const IntLike = (options: { minimum?: 0 | 1 } = {}): TUnion<[TInteger, TString]> =>
  Type.Union([
    Type.Integer({ minimum: options.minimum ?? 0, maximum: MAX_INT }),
    // Digits only (the format); with minimum 1, at least one of them not zero.
    Type.String({ format: 'decimal-int', maxLength: 15, ...(options.minimum === 1 ? { pattern: '[1-9]' } : {}) }),
  ]);

/** Digits of a number from 0 to 65535. */
const upTo65535 = '^0*([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$';

/** Disk and partition numbers (0-65535): existing clients send strings ("1"), the spec integers. */
export const Number16 = (): TUnion<[TInteger, TString]> =>
  Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.String({ maxLength: 5, pattern: upTo65535 })]);

/**
 * A TCP or UDP port in the config: a number, or digits in a string as the reference's
 * ogserver.json writes it (`"port": "8888"`). Read it with `Number()`.
 */
export const Port = (options: { default?: number } = {}): TUnion<[TInteger, TString]> =>
  Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.String({ maxLength: 5, pattern: upTo65535 })], {
    expected: 'a port number from 0 to 65535',
    ...options,
  });

export const Ipv4 = (): TString => Type.String({ format: 'ipv4', maxLength: 15 });
/** An IPv4 address a host can hold: not 0.0.0.0 nor 255.255.255.255. */
export const HostIpv4 = (): TString => Type.String({ format: 'host address', maxLength: 15 });
/**
 * A client's MAC, in any notation: well formed (`mac`), then a single card's own
 * (`unicast mac`), so that a malformed one and a broadcast one are each told what is wrong.
 */
export const Mac = (): TString => Type.String({ maxLength: 17, allOf: [{ format: 'mac' }, { format: 'unicast mac' }] });
export const Netmask = (): TString => Type.String({ format: 'netmask', maxLength: 15 });

/** An address list as the reference takes it: at most 4096 entries. */
export const IpList = (options: { minItems?: number } = {}) => Type.Array(Ipv4(), { maxItems: 4096, minItems: options.minItems ?? 0 });

/**
 * A human-given name: no control characters (C0, DEL, C1) and at least one visible
 * character, so that a name of zero-width spaces or other invisible characters is refused.
 * With `empty`, '' is a name too (a client's name is optional, and '' is how it is left out).
 */
export const Name = (maxLength: number, options: { empty?: boolean } = {}): TString =>
  Type.String({ minLength: options.empty ? 0 : 1, maxLength, format: 'printable name' });

/**
 * Free text a person wrote (a location, a serial number, a comment): may be empty, never
 * holds a control character. `multiline` text (comments, descriptions) may hold tab, line
 * feed and carriage return, as a form's text area sends them; a one-line field may not.
 */
export const Text = (maxLength: number, options: { multiline?: boolean } = {}): TString =>
  Type.String({ maxLength, format: options.multiline ? 'multiline text' : 'line of text' });

export function toInt(value: number | string): number {
  return typeof value === 'number' ? value : Number.parseInt(value, 10);
}
