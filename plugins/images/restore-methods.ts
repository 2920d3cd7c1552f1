import { StartupError } from 'ogserve';
import type { Asker, Dispatch } from '../agents';
import type { ClientView } from '../inventory';
import type { RestoreParams } from './commands';

/** The image a restore sends, as a restore method sees it. */
export interface RestoredImage {
  id: number;
  name: string;
  repositoryId: number;
  /** Its file, `<name>.img` in the repository directory (undefined for a name that would leave it); it may not exist. */
  file: string | undefined;
}

/** A `POST /image/restore` of a method's type, checked by the images plugin (image, clients, restriction). */
export interface MethodRestore {
  image: RestoredImage;
  params: RestoreParams;
  /** The clients asked, each once, in the order asked. */
  ips: string[];
  /** Those the inventory knows, by address. */
  clients: ReadonlyMap<string, ClientView>;
  asker?: Asker;
}

/** What a method made of one restore: the type each agent is sent, and what it does once they are. */
export interface PreparedMethodRestore {
  /** The `type` of the agent request for `ip` (it may carry more than the method's name: `MULTICAST:9000`). */
  agentType(ip: string): string;
  /** The command went out (each client sent, busy or not connected; the job, when one is made): the answer waits for it. */
  sent(dispatch: Dispatch): Promise<void>;
  /** The command could not be sent at all (no request was made): undo what prepare set up. */
  abandoned(): void;
}

/**
 * A restore type another plugin carries out beside the agent's own (the multicast plugin's
 * MULTICAST): it is accepted by `POST /image/restore` only (a queued step sends one client at
 * a time, which such a method cannot serve), and relayed to each agent with the type the
 * method gives it (the ogLive's restore hook reads it).
 */
export interface RestoreMethod {
  /** The type as callers write it, upper case. */
  type: string;
  /** Sets the restore up, or refuses it (`badRequest` naming a field). */
  prepare(restore: MethodRestore): Promise<PreparedMethodRestore>;
  /**
   * A client answered 200 to a restore of this method (its agent type given): throw to make
   * the answer a failure, the image not recorded on its partition (the client did not get it).
   */
  answered?(client: ClientView, agentType: string): Promise<void>;
}

/** The restore methods other plugins add (`RestoreMethods` from the images plugin's entry). */
export class RestoreMethods {
  private readonly methods = new Map<string, RestoreMethod>();

  add(method: RestoreMethod): void {
    const type = method.type.toUpperCase();
    if (this.methods.has(type)) throw new StartupError(`restore method '${type}' is added twice`);
    this.methods.set(type, method);
  }

  /** The method of a type as asked (any case). */
  get(type: string): RestoreMethod | undefined {
    return this.methods.get(type.toUpperCase());
  }

  /** The method whose agent type this is (`MULTICAST:9000` is MULTICAST's). */
  ofAgentType(agentType: string): RestoreMethod | undefined {
    return this.methods.get(agentType.split(':')[0]!.toUpperCase());
  }

  types(): string[] {
    return [...this.methods.keys()];
  }
}
