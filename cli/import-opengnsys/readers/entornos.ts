import type { LegacySource } from '../legacy-source';
import type { LegacyServer } from '../model';
import { int, text, type Row } from './values';

export async function readServers(source: LegacySource): Promise<LegacyServer[]> {
  const rows = await source.query<Row>('select identorno, ipserveradm, portserveradm from entornos order by identorno');
  return rows.map((r) => ({ id: int(r.identorno), ip: text(r.ipserveradm), port: int(r.portserveradm) }));
}
