import type { Asker } from '../agents';
import type { Waker } from '../wol';
import type { Skip } from './power-off';

/**
 * Wake the PCs: the one place a calendar wakes, so that a paced wake run may take its
 * place. A PC whose agent is connected is awake already and skipped as such.
 */
export async function powerOn(waker: Pick<Waker, 'wake'>, clients: string[], asker?: Asker): Promise<{ sent: string[]; skipped: Skip[] }> {
  const report = await waker.wake(clients, 'broadcast', asker);
  const skipped: Skip[] = [];
  for (const [reason, ips] of Object.entries(report.skipped)) for (const ip of ips) skipped.push({ client: ip, reason });
  return { sent: report.sent, skipped };
}
