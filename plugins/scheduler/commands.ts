import { Type, type TObject } from '@sinclair/typebox';
import { ErrorCode, badRequest } from '../../core/errors';
import { IntLike, Number16 } from '../../core/schema-types';
import { compile } from '../../core/validation';
import type { AgentRequest } from '../agents';

/**
 * The commands a procedure step or /schedule/command may queue (reference-behaviour.md
 * 7.1), their params and the agent request each becomes when delivered.
 */
export const SchedulerError = {
  unknownCommand: 'unknown_command',
  cycle: 'cycle',
} as const;

const Text = (maxLength: number) => Type.String({ maxLength });
const Digits = (maxLength: number) => Type.String({ pattern: `^[0-9]{1,${maxLength}}$` });
const Word = () => Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_-]+$' });

interface CommandKind {
  params: TObject;
  /** The agent request it becomes; none for `wol`, which is sent when queued (wake-steps.ts). */
  request?(params: Record<string, unknown>): AgentRequest;
  /** The agent answers by closing the connection and exiting (reference 3.7): that is its success. */
  endsWithDisconnect?: boolean;
  /** Two agents writing one image file at once would corrupt it: POST /image/create takes one client too. */
  oneClientOnly?: boolean;
}

const none = Type.Object({});
const body = (params: Record<string, unknown>, keys: string[]): Record<string, unknown> =>
  Object.fromEntries(keys.filter((k) => params[k] !== undefined).map((k) => [k, params[k]]));

const kinds: Record<string, CommandKind> = {
  // The reference stores `broadcast` as mar=1 and anything else as 2; its legacy digits are accepted.
  wol: { params: Type.Object({ type: Type.Optional(Type.Union(['broadcast', 'unicast', '1', '2'].map((t) => Type.Literal(t)))) }) },
  poweroff: { params: none, request: () => ({ method: 'POST', path: 'poweroff' }) },
  reboot: { params: none, request: () => ({ method: 'POST', path: 'reboot' }) },
  stop: { params: none, request: () => ({ method: 'POST', path: 'stop' }), endsWithDisconnect: true },
  refresh: { params: none, request: () => ({ method: 'GET', path: 'refresh' }) },
  hardware: { params: none, request: () => ({ method: 'GET', path: 'hardware' }) },
  software: {
    params: Type.Object({ disk: Number16(), partition: Number16() }),
    request: (p) => ({ method: 'GET', path: 'software', body: body(p, ['disk', 'partition']) }),
  },
  // The reference's legacy session step names the partition `part`; `partition` is accepted too.
  session: {
    params: Type.Object({ disk: Number16(), part: Type.Optional(Number16()), partition: Type.Optional(Number16()) }),
    request: (p) => ({ method: 'POST', path: 'session', body: { disk: p.disk, partition: p.part ?? p.partition } }),
  },
  run: {
    params: Type.Object({ run: Type.String({ minLength: 1, maxLength: 65536 }) }),
    request: (p) => ({ method: 'POST', path: 'shell/run', body: { run: p.run, echo: false } }),
  },
  image_create: {
    params: Type.Object({
      disk: Number16(),
      partition: Number16(),
      code: Text(16),
      id: IntLike(),
      name: Text(100),
      repository: Type.Optional(Text(15)),
    }),
    oneClientOnly: true,
    request: (p) => ({ method: 'POST', path: 'image/create', body: body(p, ['disk', 'partition', 'code', 'id', 'name', 'repository']) }),
  },
  image_restore: {
    params: Type.Object({
      disk: Number16(),
      partition: Number16(),
      id: IntLike(),
      name: Text(100),
      repository: Text(15),
      type: Text(16),
      profile: Type.Optional(IntLike()),
    }),
    request: (p) => ({
      method: 'POST',
      path: 'image/restore',
      body: body(p, ['disk', 'partition', 'id', 'name', 'repository', 'type', 'profile']),
    }),
  },
  setup: {
    params: Type.Object({
      type: Type.Union([Type.Literal('MSDOS'), Type.Literal('GPT')]),
      disk: Digits(3),
      cache: Digits(1),
      cache_size: Digits(19),
      partition_setup: Type.Array(
        Type.Object({ partition: Digits(3), code: Word(), filesystem: Word(), size: Digits(19), format: Digits(1) }),
        { minItems: 1, maxItems: 16 },
      ),
    }),
    request: (p) => ({ method: 'POST', path: 'setup', body: body(p, ['type', 'disk', 'cache', 'cache_size', 'partition_setup']) }),
  },
};

export const commandNames = Object.keys(kinds);

export const endsWithDisconnect = (command: string): boolean => kinds[command]?.endsWithDisconnect === true;
export const oneClientOnly = (command: string): boolean => kinds[command]?.oneClientOnly === true;
export const oneClientMessage = 'an image is created from one client';

/**
 * Check a command and its params; returns the params to store. `field` names where the
 * command sits in the request (`command`, `steps[2].command`).
 */
export function checkCommand(command: string, params: unknown, field: string, paramsField: string): Record<string, unknown> {
  const kind = kinds[command];
  if (!kind) throw badRequest(SchedulerError.unknownCommand, `'${field}' must be one of ${commandNames.join(', ')}`, field);
  const value = params ?? {};
  const checked = compile(kind.params)(value);
  if (!checked.ok) {
    const v = checked.violation;
    const full = v.field ? `${paramsField}.${v.field}` : paramsField;
    throw badRequest(
      v.missing ? ErrorCode.missingField : ErrorCode.invalidField,
      v.message.replace(v.field ? `'${v.field}'` : 'the body', `'${full}'`),
      full,
    );
  }
  if (
    command === 'session' &&
    (value as { part?: unknown }).part === undefined &&
    (value as { partition?: unknown }).partition === undefined
  ) {
    throw badRequest(ErrorCode.missingField, `'${paramsField}.part' is required`, `${paramsField}.part`);
  }
  return value as Record<string, unknown>;
}

/** The agent request a stored command becomes when delivered. */
export function agentRequest(command: string, params: Record<string, unknown>): AgentRequest {
  const kind = kinds[command];
  if (!kind?.request) throw new Error(`'${command}' is not sent to agents`);
  return kind.request(params);
}

/** The packet kind of a stored `wol` step (broadcast unless it says unicast). */
export function wakeType(params: Record<string, unknown>): 'broadcast' | 'unicast' {
  return params.type === 'unicast' || params.type === '2' ? 'unicast' : 'broadcast';
}
