import { type Static, type TArray, type TObject, type TString, Type } from '@sinclair/typebox';
import { StartupError, IpList, inject, injectable } from 'ogserve';
import { type AnswerHandler, AgentLink } from './link';
import type { Asker, DispatchOrigin } from './observers';
import type { AgentRequest, Dispatch } from './types';

/**
 * One command the agents carry out, defined once by the plugin that owns it. Its REST
 * route checks the body (besides the client list) with `params`, and so does the
 * scheduler with a queued step's params; both send what `request` makes of them, and
 * `stored` keeps what the answer says.
 */
export interface AgentCommand<P extends TObject = TObject> {
  /** Its name in procedures and schedules (reference-behaviour.md 7.1), e.g. 'image_create'. */
  name: string;
  /** The agent path it is sent on, e.g. 'image/create'. */
  path: string;
  params: P;
  /**
   * Rules the schema cannot say (a value from a list in any case); throws badRequest naming
   * the param. Runs where the params are accepted, before anything is queued or sent.
   */
  check?(params: Static<P>): void;
  /**
   * The request for one client. It may look things up (an image's repository by its
   * address on the client's network) and throws an HttpError naming the param when the
   * command cannot be sent to that client.
   */
  request(params: Static<P>, ip: string): AgentRequest | Promise<AgentRequest>;
  /** What to keep from a 200 answer; throwing makes the command a failure. */
  stored?: AnswerHandler;
  /** Params a queued step sends when it leaves them out (the reference queues scripts without echo). */
  queuedDefaults?: Partial<Static<P>>;
  /** The agent answers by closing its connection and exiting (stop): that is its success. */
  endsWithDisconnect?: boolean;
  /** Sent to one client per request: two agents writing one image file would corrupt it. */
  oneClient?: boolean;
}

/** The agent commands of every enabled plugin, by name. */
@injectable()
export class AgentCommands {
  private readonly byName = new Map<string, AgentCommand>();

  constructor(@inject(AgentLink) private readonly link: Pick<AgentLink, 'onAnswer' | 'answeredByDisconnect'>) {}

  define<P extends TObject>(command: AgentCommand<P>): AgentCommand<P> {
    if (this.byName.has(command.name)) throw new StartupError(`agent command '${command.name}' is defined twice`);
    this.byName.set(command.name, command as unknown as AgentCommand);
    if (command.stored) this.link.onAnswer(command.path, command.stored);
    if (command.endsWithDisconnect) this.link.answeredByDisconnect(command.path);
    return command;
  }

  get(name: string): AgentCommand | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}

/** A command's REST body: the clients it goes to, then its params. */
export function withClients<P extends TObject>(
  params: P,
  clients: TArray<TString> = IpList(),
): TObject<P['properties'] & { clients: TArray<TString> }> {
  return Type.Object({ clients, ...params.properties } as P['properties'] & { clients: TArray<TString> });
}

/** The body a command relays: everything but `clients`, in the caller's key order (as the reference). */
export function paramsOf<B extends { clients: string[] }>(body: B): Omit<B, 'clients'> {
  const { clients: _clients, ...params } = body;
  return params;
}

/**
 * Sends a command to clients: each gets the request made for it, and clients whose
 * requests are alike share one dispatch. Outcomes come in the order asked; `asker` (a
 * route's `askerOf(access, req)`) is told to the dispatch observers, with the command and params.
 */
export async function sendCommand<P extends TObject>(
  link: Pick<AgentLink, 'dispatch' | 'observers'>,
  command: AgentCommand<P>,
  params: Static<P>,
  ips: string[],
  asker?: Asker,
): Promise<Dispatch> {
  command.check?.(params);
  const requests = new Map<string, AgentRequest>();
  for (const ip of new Set(ips)) requests.set(ip, await command.request(params, ip));
  return dispatchEach(link, ips, (ip) => requests.get(ip)!, { kind: command.path, params, asker });
}

/**
 * Sends each client the request made for it; clients whose requests are alike share one
 * dispatch (a repository's address differs by network). Outcomes come in the order asked.
 * With `origin`, the whole is one command to the dispatch observers (one job), whose id
 * the result's `job` resolves with.
 */
export async function dispatchEach(
  link: Pick<AgentLink, 'dispatch' | 'observers'>,
  ips: string[],
  requestFor: (ip: string) => AgentRequest,
  origin?: DispatchOrigin,
): Promise<Dispatch> {
  const groups = new Map<string, { request: AgentRequest; ips: string[] }>();
  for (const ip of new Set(ips)) {
    const request = requestFor(ip);
    const key = JSON.stringify(request);
    const group = groups.get(key);
    if (group) group.ips.push(ip);
    else groups.set(key, { request, ips: [ip] });
  }
  const outcomes = new Map<string, Dispatch['outcomes'][number]>();
  const answers: Dispatch['answers'] = new Map();
  for (const dispatch of await Promise.all([...groups.values()].map(({ request, ips: group }) => link.dispatch(group, request)))) {
    for (const outcome of dispatch.outcomes) outcomes.set(outcome.addr, outcome);
    for (const [ip, answer] of dispatch.answers) answers.set(ip, answer);
  }
  const dispatch: Dispatch = { outcomes: [...new Set(ips)].map((ip) => outcomes.get(ip)!), answers };
  // Not awaited: the caller sets up what it does with the answers first.
  return origin ? { ...dispatch, job: link.observers.observed(origin, dispatch) } : dispatch;
}

/** A command's REST answer: who was sent it, who was busy, who is not connected, and its job when one was made. */
export async function dispatchAnswer(dispatch: Dispatch): Promise<{ clients: Dispatch['outcomes']; job?: number }> {
  const job = await dispatch.job;
  return job === undefined ? { clients: dispatch.outcomes } : { clients: dispatch.outcomes, job };
}
