import type { LegacySource } from '../legacy-source';
import type { LegacyClient } from '../model';
import type { Progress } from '../progress';
import { flag, int, intOrNull, text, textOrNull, type Row } from './values';

const page = 5000;

/** Computers, read in pages by id (keyset), so that a large site shows progress and no query holds them all. */
export async function readClients(source: LegacySource, progress: Progress): Promise<LegacyClient[]> {
  const [{ n }] = (await source.query<{ n: number }>('select count(*) as n from ordenadores')) as [{ n: number }];
  const total = Number(n);
  const out: LegacyClient[] = [];
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const rows = await source.query<Row>(
      `select idordenador, identorno, nombreordenador, numserie, ip, mac, idaula, grupoid, idperfilhard, idrepositorio,
        mascara, arranque, netiface, netdriver, oglivedir, inremotepc, maintenance
        from ordenadores where idordenador > ? order by idordenador limit ${page}`,
      [after],
    );
    for (const r of rows) out.push(client(r));
    progress.advance('reading ordenadores', out.length, total);
    if (rows.length < page) return out;
    after = out.at(-1)!.id;
  }
}

function client(r: Row): LegacyClient {
  return {
    id: int(r.idordenador),
    name: textOrNull(r.nombreordenador),
    serialNumber: textOrNull(r.numserie),
    ip: text(r.ip),
    mac: textOrNull(r.mac),
    roomId: intOrNull(r.idaula),
    folderId: intOrNull(r.grupoid),
    hardwareProfileId: intOrNull(r.idperfilhard),
    repositoryId: intOrNull(r.idrepositorio),
    serverId: int(r.identorno),
    netmask: text(r.mascara),
    boot: text(r.arranque),
    netiface: textOrNull(r.netiface),
    netdriver: text(r.netdriver),
    livedir: text(r.oglivedir),
    remote: flag(r.inremotepc),
    maintenance: flag(r.maintenance),
  };
}
