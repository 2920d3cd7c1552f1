import type { Static } from '@sinclair/typebox';
import type { ClientView } from '../inventory';
import type { GroupFilter } from './schemas';

export type Filter = Static<typeof GroupFilter>;

/** The hex digits of a text that could be part of a MAC ("00:1a" → "001a"), or '' when it could not. */
function macDigits(text: string): string {
  if (!/^[0-9a-f:.-]+$/.test(text)) return '';
  const digits = text.replace(/[:.-]/g, '');
  return digits.length >= 4 ? digits : '';
}

/**
 * The PCs a filter finds among `clients`, in their order: inside its center, room or computer
 * folder (a folder's own PCs, as a power calendar's), and holding its text in the PC's name,
 * address or MAC or its room's or center's name, as the console's fleet search finds them.
 */
export function matching(clients: Iterable<ClientView>, filter: Filter, centerNames: ReadonlyMap<number, string>): ClientView[] {
  const text = (filter.text ?? '').trim().toLowerCase();
  const mac = macDigits(text);
  const { within } = filter;
  const out: ClientView[] = [];
  for (const c of clients) {
    if (within) {
      const id = within.type === 'center' ? c.room.centerId : within.type === 'room' ? c.room.id : c.folderId;
      if (id !== within.id) continue;
    }
    if (text) {
      const names = `${c.name}\n${c.ip}\n${c.room.name}\n${centerNames.get(c.room.centerId) ?? ''}`.toLowerCase();
      if (!names.includes(text) && !(mac && c.mac.includes(mac))) continue;
    }
    out.push(c);
  }
  return out;
}
