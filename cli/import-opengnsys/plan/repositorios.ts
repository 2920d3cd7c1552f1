import { bundledParts } from '../parts';
import { refusalOf } from './body-check';
import { UniqueKeys, alreadyThere, decide, idRefusal, label, type Planning } from './context';

const { RepositoryAdd } = bundledParts.inventory.bodies;

const table = 'repositorios';
const columns = { name: 'nombrerepositorio', ip: 'ip' };

/** Repositories, by POST /repository/add's rules: no two share an address. */
export function planRepositories(p: Planning): void {
  p.ledger.read(table, p.site.repositories.length);
  const addresses = new UniqueKeys('address', p.rules.held.keys.repositoryAddresses);
  for (const repository of p.site.repositories) {
    if (alreadyThere(p, p.repositories, table, repository.id, p.rules.held.repositories)) continue;
    const row = label(table, repository.id, repository.name);
    const body = { name: repository.name, ip: repository.ip };
    const reason = idRefusal(repository.id) ?? refusalOf(RepositoryAdd, body, columns, table) ?? addresses.taken(repository.ip);
    const kept = decide(p, p.repositories, table, row, repository.id, reason, () => ({
      id: repository.id,
      name: repository.name,
      // The reference's column may be NULL; ogserve's repositories belong to center 1 unless told.
      center: repository.centerId ?? 1,
      addresses: [repository.ip],
    }));
    if (kept) {
      addresses.hold(repository.ip, row);
      p.plan.repositories.push(kept);
    }
  }
}
