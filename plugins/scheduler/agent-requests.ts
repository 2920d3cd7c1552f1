import type { AgentRequest } from '../agents';
import { repositoryAddressFor, type Inventory } from '../inventory';
import { agentRequest } from './commands';

/** A stored command that cannot be sent as it is; the action fails with this message. */
export class UnsendableAction extends Error {
  override name = 'UnsendableAction';
}

/**
 * The agent request of a queued action, made when it is delivered: image steps name their
 * repository by the address the client reaches it on, and that depends on the client
 * (a repository may answer on one address per network), not on the step.
 */
export class AgentRequests {
  constructor(private readonly inventory: Pick<Inventory, 'clientByIp' | 'repository' | 'repositoryByAddress'>) {}

  async for(action: { ip: string; command: string; params: string }): Promise<AgentRequest> {
    const params = JSON.parse(action.params) as Record<string, unknown>;
    if (action.command === 'image_create' || action.command === 'image_restore')
      params.repository = await this.repositoryAddress(action.ip, params.repository);
    return agentRequest(action.command, params);
  }

  /**
   * The step's address mapped to the client's own network when it is one of a repository's
   * addresses; without one (image_create may leave it out, as the reference's steps do)
   * the client's own repository, as POST /image/create does.
   */
  private async repositoryAddress(ip: string, asked: unknown): Promise<string> {
    const client = (await this.inventory.clientByIp(ip)) ?? undefined;
    if (typeof asked === 'string') {
      const repository = await this.inventory.repositoryByAddress(asked);
      return repository ? (repositoryAddressFor(client, repository.addresses, asked) ?? asked) : asked;
    }
    const repository = client?.repositoryId ? await this.inventory.repository(client.repositoryId) : null;
    const address = repository ? repositoryAddressFor(client, repository.addresses) : undefined;
    if (!address) throw new UnsendableAction('the step names no repository and the client has none with an address');
    return address;
  }
}
