import type { LegacySource } from '../legacy-source';
import type { LegacySchedule } from '../model';
import { flag, int, intOrNull, textOrNull, type Row } from './values';

export async function readSchedules(source: LegacySource): Promise<LegacySchedule[]> {
  const rows = await source.query<Row>(
    `select idprogramacion, tipoaccion, identificador, nombrebloque, annos, meses, diario, dias, semanas, horas, ampm, minutos,
      suspendida, sesion from programaciones order by idprogramacion`,
  );
  return rows.map((r) => ({
    id: int(r.idprogramacion),
    kind: intOrNull(r.tipoaccion),
    target: intOrNull(r.identificador),
    name: textOrNull(r.nombrebloque),
    years: int(r.annos),
    months: int(r.meses),
    days: int(r.diario),
    weekDays: int(r.dias),
    weeks: int(r.semanas),
    hours: int(r.horas),
    amPm: int(r.ampm),
    minutes: int(r.minutos),
    suspended: flag(r.suspendida),
    session: int(r.sesion),
  }));
}
