import type { LegacySource } from '../legacy-source';
import type { LegacyProcedure } from '../model';
import { int, text, textOrNull, type Row } from './values';

/**
 * Procedures and their steps in execution order. Steps of deleted procedures (the
 * reference's /procedure/delete leaves them behind) are not read.
 */
export async function readProcedures(source: LegacySource): Promise<LegacyProcedure[]> {
  const procedures = new Map<number, LegacyProcedure>();
  const rows = await source.query<Row>(
    'select idprocedimiento, descripcion, idcentro, comentarios from procedimientos order by idprocedimiento',
  );
  for (const r of rows) {
    procedures.set(int(r.idprocedimiento), {
      id: int(r.idprocedimiento),
      name: text(r.descripcion),
      centerId: int(r.idcentro),
      comment: textOrNull(r.comentarios),
      steps: [],
    });
  }
  const steps = await source.query<Row>(
    `select s.idprocedimiento, s.parametros, s.procedimientoid, c.funcion from procedimientos_acciones s
      left join comandos c on c.idcomando = s.idcomando
      order by s.idprocedimiento, s.orden, s.idprocedimientoaccion`,
  );
  for (const r of steps) {
    const procedure = procedures.get(int(r.idprocedimiento));
    if (!procedure) continue;
    procedure.steps.push(
      int(r.procedimientoid) > 0
        ? { kind: 'procedure', procedureId: int(r.procedimientoid) }
        : { kind: 'command', text: text(r.parametros), catalogueFunction: textOrNull(r.funcion) },
    );
  }
  return [...procedures.values()];
}
