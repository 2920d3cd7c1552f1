import { Type } from '@sinclair/typebox';
import { ErrorCode, HttpError, badRequest, compile } from 'ogserve';
import type { AgentCommands, AgentRequest } from '../agents';

/**
 * The commands a procedure step or /schedule/command may queue (reference-behaviour.md
 * 7.1): `wol`, which the scheduler sends itself, and every agent command the enabled
 * plugins define, checked by the rules of their REST calls and sent as those send them.
 */
export const SchedulerError = {
  unknownCommand: 'unknown_command',
  cycle: 'cycle',
} as const;

export const oneClientMessage = 'an image is created from one client';

// The reference stores `broadcast` as mar=1 and anything else as 2; its legacy digits are accepted.
const WolParams = Type.Object({ type: Type.Optional(Type.Union(['broadcast', 'unicast', '1', '2'].map((t) => Type.Literal(t)))) });
const checkWol = compile(WolParams);

/** Param names of the reference's steps that the REST calls spell otherwise: a session step's `part`. */
const legacyNames: Record<string, Record<string, string>> = { session: { part: 'partition' } };

/** A step's params with the reference's legacy names as the REST call spells them. */
function restNames(command: string, params: Record<string, unknown>): Record<string, unknown> {
  const renames = legacyNames[command];
  if (!renames) return params;
  const out = { ...params };
  for (const [legacy, name] of Object.entries(renames)) {
    if (out[legacy] === undefined) continue;
    if (out[name] === undefined) out[name] = out[legacy];
    delete out[legacy];
  }
  return out;
}

/** A param named as the step names it (`part` where the step was given `part`, or gave neither). */
function stepName(command: string, params: Record<string, unknown>, name: string): string {
  const legacy = Object.entries(legacyNames[command] ?? {}).find(([, rest]) => rest === name)?.[0];
  return legacy !== undefined && params[name] === undefined ? legacy : name;
}

export class StepCommands {
  constructor(private readonly agentCommands: AgentCommands) {}

  names(): string[] {
    return ['wol', ...this.agentCommands.names()];
  }

  /**
   * Check a command and its params; returns the params to store. `field` names where the
   * command sits in the request (`command`, `steps[2].command`), `paramsField` its params.
   */
  check(command: string, params: unknown, field: string, paramsField: string): Record<string, unknown> {
    const value = (params ?? {}) as Record<string, unknown>;
    const definition = this.agentCommands.get(command);
    if (command !== 'wol' && !definition)
      throw badRequest(SchedulerError.unknownCommand, `'${field}' must be one of ${this.names().join(', ')}`, field);
    const relative = (name: string | undefined) => (name ? `${paramsField}.${stepName(command, value, name)}` : paramsField);
    const asked = typeof value === 'object' && value !== null && !Array.isArray(value) ? restNames(command, value) : value;
    const checked = definition ? compile(definition.params)(asked) : checkWol(asked);
    if (!checked.ok) {
      const v = checked.violation;
      const full = relative(v.field);
      throw badRequest(
        v.missing ? ErrorCode.missingField : ErrorCode.invalidField,
        v.message.replace(v.field ? `'${v.field}'` : 'the body', `'${full}'`),
        full,
      );
    }
    try {
      definition?.check?.(asked);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      const full = relative(error.field);
      throw new HttpError(error.status, error.code, error.message.replace(`'${error.field}'`, `'${full}'`), full);
    }
    return value;
  }

  /** The agent request a stored step becomes for a client. A queued step waits its turn: never forced on a busy client. */
  async request(command: string, params: Record<string, unknown>, ip: string): Promise<AgentRequest> {
    const definition = this.agentCommands.get(command);
    if (!definition) throw new Error(`'${command}' is not an agent command of an enabled plugin`);
    const { force: _force, ...request } = await definition.request({ ...definition.queuedDefaults, ...restNames(command, params) }, ip);
    return request;
  }

  endsWithDisconnect(command: string): boolean {
    return this.agentCommands.get(command)?.endsWithDisconnect === true;
  }

  oneClientOnly(command: string): boolean {
    return this.agentCommands.get(command)?.oneClient === true;
  }
}

/** The packet kind of a stored `wol` step (broadcast unless it says unicast). */
export function wakeType(params: Record<string, unknown>): 'broadcast' | 'unicast' {
  return params.type === 'unicast' || params.type === '2' ? 'unicast' : 'broadcast';
}
