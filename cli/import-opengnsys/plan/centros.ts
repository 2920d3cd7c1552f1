import { bundledParts } from '../parts';
import { refusalOf } from './body-check';
import { UniqueKeys, alreadyThere, decide, idRefusal, label, type Planning } from './context';

const { CenterAdd } = bundledParts.inventory.bodies;

const table = 'centros';
const columns = { name: 'nombrecentro', comment: 'comentarios' };

/** Centers, by POST /center/add's rules: names are unique. */
export function planCenters(p: Planning): void {
  p.ledger.read(table, p.site.centers.length);
  const names = new UniqueKeys('name', p.rules.held.keys.centerNames);
  for (const center of p.site.centers) {
    const row = label(table, center.id, center.name);
    const legacy = { row, identity: center.name, held: p.rules.held.rows.centers, what: 'name' };
    if (alreadyThere(p, p.centers, table, center.id, p.rules.held.centers, legacy)) continue;
    const body = { name: center.name, comment: center.comment ?? '' };
    const reason =
      idRefusal(center.id) ?? refusalOf(CenterAdd, body, columns, table) ?? names.taken(center.name, JSON.stringify(center.name));
    const kept = decide(p, p.centers, table, row, center.id, reason, () => ({
      id: center.id,
      name: center.name,
      comment: center.comment ?? '',
    }));
    if (kept) {
      names.hold(center.name, row);
      p.plan.centers.push(kept);
    }
  }
}
