import { bundledParts } from '../parts';
import { label, type Planning } from './context';

/** The hardware types the agents know: a component of another type is left out. */
const { hardwareTypes } = bundledParts.agents;

const table = 'perfileshard';

/**
 * Hardware profiles, kept as each computer's hardware list (what GET /hardware shows).
 * Components of a type ogserve does not know (a site's own addition to `tipohardwares`)
 * are left out with a note on the profile.
 */
export function planHardware(p: Planning): void {
  const profiles = p.site.hardwareProfiles;
  p.ledger.read(table, profiles.size);
  const used = new Set<number>();
  for (const client of p.plan.clients) {
    const profile = client.hardwareId ? profiles.get(client.hardwareId) : undefined;
    if (!profile) continue;
    used.add(profile.id);
    const items = profile.items.filter((item) => Object.hasOwn(hardwareTypes, item.type));
    if (items.length > 0) p.plan.hardware.push({ clientId: client.id, items });
  }
  for (const profile of profiles.values()) {
    if (!used.has(profile.id)) continue;
    p.ledger.imported(table);
    p.plan.hardwareProfiles.push({ id: profile.id, items: profile.items.filter((item) => Object.hasOwn(hardwareTypes, item.type)) });
    const unknown = [...new Set(profile.items.filter((item) => !Object.hasOwn(hardwareTypes, item.type)).map((item) => item.type))];
    if (unknown.length > 0) {
      p.ledger.changed(
        table,
        label(table, profile.id, profile.name),
        `components of type ${unknown.map((t) => `'${t}'`).join(', ')} (tipohardwares.nemonico), which ogserve does not know, are left out`,
      );
    }
  }
  p.ledger.leftOut(table, profiles.size - used.size, 'used by no imported computer');
}
